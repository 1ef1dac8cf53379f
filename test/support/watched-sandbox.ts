/**
 * A real isolate sandbox watched from the Sandbox seam: what a program asked of the host (calls, lines) and how
 * each run ended there, before anything the runtime does with it — for tests of what reaches the world first
 * (the verdict gate: test/runtime/typecheck-overlap, test/security/verdict-gate-races).
 */
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox, SandboxOutcome } from '../../sandbox/types.js'

/** What the program did as the backend saw it: calls and lines sent to the host, and how each run ended there. */
export interface Seen {
  calls: number
  lines: number
  runs: number
  outcomes: SandboxOutcome[]
  /** The longest the host took to answer one call, in ms (a call held at the gate waits for the verdict). */
  longestCallMs: number
}

/** A real isolate sandbox, watched from the seam; `overlappable: false` says its programs have effects of their own. */
export function watchedSandbox(overlappable = true): { sandbox: Sandbox; seen: Seen } {
  const inner = createIsolateSandbox()
  const seen: Seen = { calls: 0, lines: 0, runs: 0, outcomes: [], longestCallMs: 0 }
  const sandbox: Sandbox = {
    name: inner.name,
    capabilities: { ...inner.capabilities, effectsOnlyThroughHost: overlappable },
    start: () => inner.start(),
    close: () => inner.close(),
    endSession: (id) => inner.endSession(id),
    run: async (request, host, signal) => {
      seen.runs++
      const outcome = await inner.run(
        request,
        {
          callTool: async (name, args) => {
            seen.calls++
            const t0 = performance.now()
            const answer = await host.callTool(name, args)
            seen.longestCallMs = Math.max(seen.longestCallMs, performance.now() - t0)
            return answer
          },
          log: (entries) => {
            seen.lines += entries.length
            host.log(entries)
          },
        },
        signal,
      )
      seen.outcomes.push(outcome)
      return outcome
    },
  }
  return { sandbox, seen }
}

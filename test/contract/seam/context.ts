/**
 * What a promise's check is given, and the small tools every check uses: a run that can only answer (a
 * rejection or a hang past a bound becomes a problem, not a crash), and comparisons that return what is
 * wrong instead of throwing, so a check can be run against a broken backend and its problems asserted.
 */
import { isDeepStrictEqual, inspect } from 'node:util'
import type { Sandbox, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../../../sandbox/types.js'
import type { SandboxCapabilities as Capabilities } from '../../../sandbox/types.js'

export interface SeamContext {
  /** The backend under test, started. */
  sandbox: Sandbox
  capabilities: Capabilities
  /** A new instance of the same backend (the suite closes it). */
  make(): Sandbox
  /** The same backend set up so that it cannot start (a missing child, an engine nowhere). */
  unstartable(): Sandbox
  /** The workspace the backend mounts: the program's working folder, with `locked/` read-only. */
  workspace: string
}

export interface SeamCase {
  /** The promise, as the test names it and a skip list names it. */
  name: string
  /** Whether a backend with these capabilities makes the promise at all (unset: every backend). */
  offered?(capabilities: Capabilities): boolean
  /** What is wrong with `ctx.sandbox` on this promise; empty when it keeps it. */
  check(ctx: SeamContext): Promise<string[]>
}

/**
 * No answer this long after it should have come is a broken promise (a hang), not a slow machine. The
 * breaker test, whose breaks are certain, shortens it.
 */
export const bounds = { hangMs: 120_000 }

/** The outcome, or the problem: a rejection, or no answer within `bounds.hangMs`. */
export async function answer(
  sandbox: Sandbox,
  request: SandboxRunRequest,
  host: SandboxHost,
  signal: AbortSignal,
): Promise<{ outcome: SandboxOutcome; problem?: undefined } | { outcome?: undefined; problem: string }> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`run gave no answer within ${bounds.hangMs} ms`), bounds.hangMs)
  })
  try {
    const first = await Promise.race([sandbox.run(request, host, signal), hang])
    if (typeof first === 'string') return { problem: first }
    if (first === null || typeof first !== 'object' || typeof first.ok !== 'boolean') return { problem: `run answered ${inspect(first)}` }
    if (typeof first.droppedOutputBytes !== 'number') return { problem: `outcome without droppedOutputBytes: ${inspect(first)}` }
    return { outcome: first }
  } catch (e) {
    return { problem: `run rejected: ${e instanceof Error ? e.message : inspect(e)}` }
  } finally {
    clearTimeout(timer)
  }
}

/** `what` differs from `want`: one line saying how; nothing when they agree. */
export function same(what: string, got: unknown, want: unknown): string[] {
  return isDeepStrictEqual(got, want) ? [] : [`${what}: got ${inspect(got, { depth: 4 })}, want ${inspect(want, { depth: 4 })}`]
}

/** The outcome failed with `kind` (and `budget`, when given). */
export function failedWith(outcome: SandboxOutcome, kind: string, budget?: 'program' | 'deadline'): string[] {
  if (outcome.ok) return [`want a ${kind} outcome, got ok with ${outcome.valueJson}`]
  const problems = same('error kind', outcome.error.kind, kind)
  if (budget !== undefined) problems.push(...same('timeout budget', outcome.error.budget, budget))
  return problems.map((p) => `${p} (${outcome.error.message})`)
}

/** The value of an ok outcome, parsed; a problem for anything else. */
export function parsedValue(outcome: SandboxOutcome): { value: unknown; problems: string[] } {
  if (!outcome.ok) return { value: undefined, problems: [`want ok, got ${outcome.error.kind}: ${outcome.error.message}`] }
  try {
    return { value: outcome.valueJson === undefined ? undefined : JSON.parse(outcome.valueJson), problems: [] }
  } catch {
    return { value: undefined, problems: [`valueJson is not JSON text: ${outcome.valueJson}`] }
  }
}

/**
 * One deliberate break per promise of the seam: a wrapper around a backend that keeps it, which breaks
 * exactly that promise the way a real backend could. The breaker test runs each promise's check against its
 * breaker and expects problems, so a check that cannot see its break fails there.
 */
import { LIMITS } from './programs.js'
import type { Sandbox, SandboxErrorKind, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../../../sandbox/types.js'

export interface Breaker {
  /** The backend that keeps the promise and is broken here (the in-process one where it keeps it). */
  base: 'in-process' | 'isolate' | 'docker'
  /** What the break is, as a backend could get it wrong. */
  what: string
  /** The break is a hang: the check may call it one after a few seconds instead of the suite's bound. */
  hangs?: true
  wrap(sandbox: Sandbox): Sandbox
}

/** `sandbox` with some of its parts replaced. */
function replaced(sandbox: Sandbox, parts: Partial<Sandbox>): Sandbox {
  return {
    name: sandbox.name,
    capabilities: sandbox.capabilities,
    start: () => sandbox.start(),
    run: (request, host, signal) => sandbox.run(request, host, signal),
    close: () => sandbox.close(),
    ...(sandbox.endSession ? { endSession: (id: string) => sandbox.endSession!(id) } : {}),
    ...(sandbox.stageRun ? { stageRun: (id: string, stage: { upper: string; work: string }) => sandbox.stageRun!(id, stage) } : {}),
    ...parts,
  }
}

/** Its runs' outcomes changed by `change`. */
const outcomes = (change: (o: SandboxOutcome) => SandboxOutcome) => (sandbox: Sandbox) =>
  replaced(sandbox, { run: async (r, h, s) => change(await sandbox.run(r, h, s)) })

/** Its runs' requests changed by `change` before the backend sees them. */
const requests = (change: (r: SandboxRunRequest) => SandboxRunRequest) => (sandbox: Sandbox) =>
  replaced(sandbox, { run: (r, h, s) => sandbox.run(change(r), h, s) })

/** An error of one kind answered as another. */
const relabel = (from: SandboxErrorKind, to: SandboxErrorKind) =>
  outcomes((o) => (!o.ok && o.error.kind === from ? { ...o, error: { ...o.error, kind: to } } : o))

/** The host sees the first call only after the second (or a moment later when there is none). */
function reordering(host: SandboxHost): SandboxHost {
  let second!: () => void
  const secondArrived = new Promise<void>((resolve) => (second = resolve))
  let n = 0
  return {
    log: (entries) => host.log(entries),
    async callTool(name, argsJson) {
      if (++n === 1) await Promise.race([secondArrived, new Promise((r) => setTimeout(r, 1000))])
      else second()
      return host.callTool(name, argsJson)
    },
  }
}

const never = () => new AbortController().signal
const silent: SandboxHost = { callTool: async () => '{"ok":true,"value":null}', log: () => {} }

export const BREAKERS: Readonly<Record<string, Breaker>> = {
  'start never throws: an unstartable backend answers sandbox_unavailable': {
    base: 'in-process',
    what: 'start throws when the backend cannot start',
    wrap: (s) =>
      replaced(s, {
        async start() {
          await s.start()
          const probe = await s.run({ runId: 'probe', js: '(async function () {})', toolNames: [], limits: LIMITS }, silent, never())
          if (!probe.ok && probe.error.kind === 'sandbox_unavailable') throw new Error(`broken: ${probe.error.message}`)
        },
      }),
  },
  'run never rejects, whatever the program is': {
    base: 'in-process',
    what: 'run rejects with a failed outcome instead of answering it',
    wrap: outcomes((o) => {
      if (!o.ok) throw new Error(`broken: ${o.error.message}`)
      return o
    }),
  },
  'returns the value as JSON text': {
    base: 'in-process',
    what: 'the value is encoded twice, and nothing returned answers null',
    wrap: outcomes((o) => (o.ok ? { ...o, valueJson: JSON.stringify(o.valueJson ?? null) } : o)),
  },
  'a value JSON cannot hold comes back converted, with a note saying how': {
    base: 'isolate',
    what: 'the note on a converted value is dropped',
    wrap: outcomes((o) => (o.ok ? { ...o, valueNote: undefined } : o)),
  },
  'each kind of value comes back as JSON holds it, 100,000 records well within the limits': {
    base: 'isolate',
    what: 'the value is rendered by plain JSON.stringify',
    wrap: requests((r) => ({ ...r, js: `(async function () { return JSON.parse(JSON.stringify(await (${r.js})()) ?? 'null') })` })),
  },
  'runs are kept apart: what one run changes, the next does not see': {
    base: 'in-process',
    what: 'stateless runs share one realm',
    wrap: (s) => {
      let shared = false
      return replaced(s, {
        run: (r, h, sig) =>
          s
            .run(r.session ? r : { ...r, session: { id: 'shared', realm: shared ? 'existing' : 'new' } }, h, sig)
            .finally(() => (shared = true)),
      })
    },
  },
  'tool calls reach the host in issue order as JSON text, and their answers come back': {
    base: 'in-process',
    what: 'a later call reaches the host before the first one',
    wrap: (s) => replaced(s, { run: (r, h, sig) => s.run(r, reordering(h), sig) }),
  },
  'JS the backend cannot parse is a compile error': {
    base: 'in-process',
    what: 'JS that does not parse is answered as a runtime error',
    wrap: relabel('compile', 'runtime'),
  },
  'a thrown value that is not an Error is a runtime error naming it': {
    base: 'in-process',
    what: 'what was thrown is not said',
    wrap: outcomes((o) => (!o.ok && o.error.kind === 'runtime' ? { ...o, error: { ...o.error, message: 'the program failed' } } : o)),
  },
  'an unhandled rejection ends the run as a runtime error': {
    base: 'in-process',
    what: 'an unhandled rejection is ignored and the run goes on',
    wrap: outcomes((o) =>
      !o.ok && o.error.message.startsWith('unhandled') ? { ok: true, valueJson: '1', droppedOutputBytes: o.droppedOutputBytes } : o,
    ),
  },
  'an error carries a guest stack that leads to its line': {
    base: 'in-process',
    what: 'the stack is dropped',
    wrap: outcomes((o) => (o.ok ? o : { ...o, error: { ...o.error, stack: undefined } })),
  },
  'abort ends a run waiting on the host as aborted': {
    base: 'in-process',
    hangs: true,
    what: 'the signal is never listened to',
    wrap: (s) => replaced(s, { run: (r, h) => s.run(r, h, never()) }),
  },
  'abort ends a busy program as aborted': {
    base: 'isolate',
    hangs: true,
    what: 'the signal is never listened to',
    wrap: (s) => replaced(s, { run: (r, h) => s.run(r, h, never()) }),
  },
  "the program's own time ends it as timeout (budget: program)": {
    base: 'in-process',
    what: 'the program-time timeout is labelled as the deadline',
    wrap: outcomes((o) => (!o.ok && o.error.budget === 'program' ? { ...o, error: { ...o.error, budget: 'deadline' } } : o)),
  },
  'time waiting on the host is not program time': {
    base: 'in-process',
    what: 'program time is the wall clock, waits on the host included',
    wrap: requests((r) => ({ ...r, limits: { ...r.limits, deadlineMs: Math.min(r.limits.deadlineMs ?? Infinity, r.limits.timeoutMs) } })),
  },
  "the run's deadline ends it as timeout (budget: deadline)": {
    base: 'in-process',
    hangs: true,
    what: 'the deadline is ignored',
    wrap: requests(({ limits: { deadlineMs: _, ...limits }, ...r }) => ({ ...r, limits })),
  },
  'memory past the limit ends a run as memory, and the next run runs': {
    base: 'isolate',
    what: 'a memory kill is answered as a runtime error',
    wrap: relabel('memory', 'runtime'),
  },
  'output past maxOutputBytes is dropped, counted in droppedOutputBytes and marked once': {
    base: 'in-process',
    what: 'dropped output is not counted',
    wrap: outcomes((o) => ({ ...o, droppedOutputBytes: 0 })),
  },
  'close ends a run in flight as aborted': {
    base: 'in-process',
    hangs: true,
    what: 'close leaves runs in flight running',
    wrap: (s) => replaced(s, { close: async () => {} }),
  },
  "a session's realm keeps its bindings between runs, apart from other runs": {
    base: 'in-process',
    what: 'every session run is given a fresh realm',
    wrap: requests((r) => (r.session ? { ...r, session: { ...r.session, realm: 'new' } } : r)),
  },
  'a realm it does not hold, or one ended, answers session_lost and runs nothing': {
    base: 'in-process',
    what: 'endSession frees nothing',
    wrap: (s) => replaced(s, { endSession: async () => {} }),
  },
  'the entropy replays: the same seed, the same Math.random; the clock read back in order': {
    base: 'in-process',
    what: 'the seed is not the one asked for',
    wrap: requests((r) => (r.entropy ? { ...r, entropy: { ...r.entropy, seed: `${r.runId}:${r.entropy.seed}` } } : r)),
  },
  'a denial the program caught is still reported in denials': {
    base: 'in-process',
    what: 'denials the program caught are dropped',
    wrap: outcomes(({ denials: _, ...o }) => o as SandboxOutcome),
  },
  'a staged run writes only its stage, and settles': {
    base: 'docker',
    what: 'stageRun answers a handle but the run writes the real workspace',
    wrap: (s) => replaced(s, { stageRun: () => ({ readBack: 'overlay', settled: async () => true, cancel: () => {} }) }),
  },
}

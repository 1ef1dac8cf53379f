/**
 * The messages between the supervisor (the caller's process) and the isolate child process, as frames on a
 * pipe (frame.ts: its own binary form, strings as raw UTF-8; it replaced Node's IPC channel, whose V8
 * serialization cost ~40 % more CPU a message each side). A call with no other in flight, and the answer to the
 * only call open, go at once, alone (a sequential call is one message each way and waits for nothing);
 * calls issued beside others travel together, one 'call' message per turn of the child's event loop, and
 * answers that settle together one 'result' message per turn of the caller's (a fan-out of many calls is
 * a few messages, not two per call). Console output rides along with the next calls or the final outcome, or goes
 * on its own when the program is busy.
 */
import type { LogEntry } from '../../vocabulary/types.js'
import type { SandboxEntropy, SandboxLimits, SandboxOutcome, SandboxSessionRef } from '../types.js'

/** One tool call: its id within the run, the tool's name, its arguments as JSON text. */
export type CallRequest = [callId: number, name: string, argsJson: string]
/** The answer to one: the call's id and the JSON text of a ToolResult. */
export type CallAnswer = [callId: number, text: string]

/** Fixed when the child is spawned (passed as its one command-line argument, JSON). */
export interface ChildConfig {
  /** Warm isolates kept ready per memory limit. */
  warmIsolates: number
  /** Memory limit (MB) the pool warms up for before any run asked. */
  warmMemoryMb: number
  /** An isolate is retired after serving this many runs. */
  maxRunsPerIsolate: number
  /** An isolate whose heap is larger than this fraction of its limit after a run is retired. */
  maxHeapFraction: number
  /** After this long without a run (ms), the pool lets its extra warm isolates go and compacts the rest (quiet.ts); 0: never. */
  quietMs: number
}

/**
 * Every message is an array whose first element says what it is (a small integer, the frame's first byte;
 * frame.ts writes each kind's fields in a fixed order).
 */
export const M = { run: 0, result: 1, abort: 2, endSession: 3, hold: 4, ready: 10, call: 11, log: 12, done: 13 } as const

/** Parent -> child. */
export type ToChild =
  | [
      kind: typeof M.run,
      id: number,
      js: string,
      toolNames: string[],
      limits: SandboxLimits,
      session: SandboxSessionRef | undefined,
      entropy: SandboxEntropy | undefined,
    ]
  /** The host's answers to calls, in the order they settled: each the JSON text of a ToolResult. */
  | [kind: typeof M.result, id: number, results: CallAnswer[]]
  | [kind: typeof M.abort, id: number]
  /** The host holds the run's calls for their type check (true), or let them go (false). */
  | [kind: typeof M.hold, id: number, holding: boolean]
  /** Free a session's realm (its isolate). */
  | [kind: typeof M.endSession, sessionId: string]

/** Child -> parent. */
export type FromChild =
  | [kind: typeof M.ready, pid: number]
  /** Calls in the order the program issued them, with the console lines printed before them. */
  | [kind: typeof M.call, id: number, calls: CallRequest[], logs: LogEntry[] | undefined]
  | [kind: typeof M.log, id: number, logs: LogEntry[]]
  /** `ms`: the child's own time for the run, from its 'run' message to this one (the bench's breakdown reads it). */
  | [kind: typeof M.done, id: number, outcome: SandboxOutcome, logs: LogEntry[] | undefined, ms: number | undefined]

export { MAX_TIMER_MS, timerMs } from '../../vocabulary/timer.js'

export const DEFAULT_CHILD_CONFIG: ChildConfig = {
  warmIsolates: 1,
  warmMemoryMb: 128,
  maxRunsPerIsolate: 100,
  maxHeapFraction: 0.5,
  quietMs: 5000,
}

/** The outcome of a run stopped by a limit or an abort; both sides of the process boundary answer with it. */
export function stoppedOutcome(kind: 'timeout' | 'deadline' | 'memory' | 'aborted', limits: SandboxLimits): SandboxOutcome {
  if (kind === 'deadline') {
    const message = `the run exceeded its deadline of ${limits.deadlineMs ?? limits.timeoutMs} ms`
    return { ok: false, error: { kind: 'timeout', budget: 'deadline', message }, droppedOutputBytes: 0 }
  }
  if (kind === 'timeout') {
    const message = `the program exceeded the time limit of ${limits.timeoutMs} ms`
    return { ok: false, error: { kind, budget: 'program', message }, droppedOutputBytes: 0 }
  }
  const message = kind === 'memory' ? memoryLimitMessage(limits.memoryMb) : 'the run was aborted'
  return { ok: false, error: { kind, message }, droppedOutputBytes: 0 }
}

export function memoryLimitMessage(memoryMb: number): string {
  return `the program exceeded the memory limit of ${memoryMb} MB`
}

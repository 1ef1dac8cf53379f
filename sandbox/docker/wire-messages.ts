/**
 * The wire between the host and the runner in a container, as both ends build it: the messages (one JSON
 * object per line on the container's stdio, a discriminated union on `type`), how a runner line is framed
 * with the run's nonce, and the bounds each field is cut to by the runner and checked against by the host
 * (protocol.ts validates with these). No dependencies: the runner (sandbox/docker/runner/) bundles it.
 */

/** Host -> runner. */
export type ToRunner =
  /** Asks for `ready` again (sent until it comes: output can miss a fresh attach). */
  | { type: 'hello' }
  /** Sent once after `ready`: the runner compiles the prelude while the container waits in the pool. */
  | { type: 'prepare'; prelude: string }
  /**
   * `nonce` is fresh per run and never enters the program's realm: every line the runner sends after this
   * starts with it, and the host drops the lines that do not (the program can write to fd 1 too).
   */
  | {
      type: 'run'
      runId: string
      nonce: string
      js: string
      toolNames: string[]
      maxOutputBytes: number
      /** The run's wall-clock deadline: the container ends itself a grace after it, host or no host. */
      deadlineMs: number
      /** A session run: the container keeps its realm for the session's next run (only a session's own container). */
      session?: true
      /** Session runs: passed to the prelude as `config.entropy` (seeded Math.random, replayed clock). */
      entropy?: { seed: string; clock?: number[] }
    }
  /** The host's answer to a call: JSON text of a ToolResult. */
  | { type: 'result'; id: number; resultJson: string }
  /** One workspace op (sandbox/workspace/ops.ts), paths already translated to the container's. */
  | { type: 'op'; id: number; op: string; root: string; args: unknown[] }
  | { type: 'cancel'; id: number }

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'
export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error', 'debug']

/** An error as the runner reports it (the program's throw, an unhandled rejection). */
export interface RunnerError {
  name: string
  message: string
  stack?: string
  /** The program's JS did not parse: nothing of it ran (kind `compile` on the seam). */
  compile?: true
}

/** Runner -> host (protocol.ts holds the validator to exactly this type). */
export type FromRunner =
  | { type: 'ready'; node: string; uid: number; pid: number }
  | { type: 'call'; id: number; name: string; argsJson: string }
  | { type: 'log'; entries: { level: LogLevel; text: string }[] }
  | { type: 'denial'; code: string; message: string }
  | { type: 'done'; outcomeJson: string; effects?: string[] | undefined }
  | { type: 'fatal'; message: string }
  /** The program left a promise rejection unhandled: the run fails, as in the isolate. */
  | { type: 'unhandled'; error: RunnerError; effects?: string[] | undefined }
  | { type: 'opResult'; id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } | undefined }

/** One line from the runner is at most this long (tool arguments and values ride in one line). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024
/** An error's name and its message / stack (each cut to this). */
export const ERROR_NAME_MAX = 200
export const ERROR_TEXT_MAX = 4000
/** A denial's message, and how many distinct denials one run reports. */
export const DENIAL_TEXT_MAX = 500
export const MAX_DENIALS = 100
/** The effects a run reports (`+N more` after them) and the length of each. */
export const MAX_EFFECTS = 20
export const EFFECT_TEXT_MAX = 300
/** One console entry's text, and the entries in one `log` message. */
export const LOG_TEXT_MAX = 1 << 20
export const LOG_ENTRIES_MAX = 10_000
/** A workspace op's error message. */
export const OP_ERROR_TEXT_MAX = 1000

/** The codes a workspace op fails with across the wire (anything else arrives as EIO). */
export const OP_ERROR_CODES: readonly string[] = [
  'ENOENT',
  'EEXIST',
  'EISDIR',
  'ENOTDIR',
  'ENOTEMPTY',
  'EFBIG',
  'EILSEQ',
  'EACCES',
  'EROFS',
  'EPERM',
  'ENOSPC',
  'EDQUOT',
  'SANDBOX_UNAVAILABLE',
  'ECANCELED',
  'EIO',
]

/** What starts every runner line once a run is sent. */
export function noncePrefix(nonce: string): string {
  return `${nonce} `
}

/** One runner line: on a fresh line of its own (a partial line the program left on fd 1 cannot swallow it). */
export function frameLine(nonce: string, json: string): string {
  return `\n${nonce ? noncePrefix(nonce) : ''}${json}\n`
}

/**
 * The runtime's vocabulary: tool definitions, calls, results, hooks, events and the RunResult.
 * Everything that crosses a seam is described here; nothing here does anything.
 */
import type { ZodType } from 'zod'

/** Any value JSON can hold. Tool arguments and results are always of this shape. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** A raw JSON Schema object (MCP tools arrive this way). */
export type JsonSchema = { [key: string]: unknown }

/** A tool's argument or output schema: a zod schema or a raw JSON Schema object. */
export type SchemaLike = ZodType | JsonSchema

/** Where a call came from: a `tools.x()` sub-call inside a program, or a model's native function call. */
export type CallOrigin = 'code' | 'native'

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** The call's id, as it appears in the event log. */
  readonly callId: string
  /** The enclosing `run_code` call, for sub-calls made by a program. */
  readonly parentId: string | undefined
  readonly origin: CallOrigin
  /** Aborts when the run or batch is cancelled, or the call timed out. Long tools should honour it. */
  readonly signal: AbortSignal
  /** Ends the model's turn after this batch of native calls (the caller skips its next model request). */
  concludeTurn(): void
  /**
   * Records a refusal that happened inside a successful call (e.g. the kernel answered EROFS to a command
   * run by `bash`), so the observation lists it even though the call itself succeeded.
   */
  reportDenial(denial: ToolError): void
  /**
   * Backend-specific services for built-in tools (for example, the Docker backend runs workspace tools
   * inside the run's container). Keyed by service name; tools that do not know a service ignore it.
   */
  readonly services: Readonly<Record<string, unknown>>
}

/**
 * A tool. A plain object literal works; `defineTool` only adds types.
 * `parameters` is a zod schema or a JSON Schema object; arguments are validated against it before any hook runs.
 */
export interface ToolDefinition<Args = unknown, Result = unknown> {
  /** `[A-Za-z0-9_-]{1,64}`. */
  name: string
  description: string
  parameters: SchemaLike
  /** Describes the value `execute` resolves to; used for the SDK's return types. */
  output?: SchemaLike
  execute(args: Args, ctx: ToolContext): Result | Promise<Result>
  /** An exclusive call waits for every earlier call and blocks every later one (a barrier). */
  exclusive?: boolean
  /** Per-call deadline; a call still running then fails with `ETIMEDOUT` and its signal aborts. */
  timeoutMs?: number
  /** Hints for hosts (MCP tool annotations): what the tool does to the world. Never enforced. */
  annotations?: ToolAnnotations
  /**
   * Who may call it, as in OpenAI's programmatic tool calling: `direct` (a model's native call, a ReAct
   * action), `programmatic` (a program's `tools.x()`). Absent: both. A direct-only tool is absent from the
   * SDK programs see; a programmatic-only one from `rt.tools.definitions()` and refused as a native call.
   */
  allowedCallers?: readonly ToolAllowedCaller[]
  /** The same as `allowedCallers`, in the Responses API's spelling (a definition copied from a request works). */
  allowed_callers?: readonly ToolAllowedCaller[]
}

/** Who may call a tool (`ToolDefinition.allowedCallers`), in OpenAI's words. */
export type ToolAllowedCaller = 'direct' | 'programmatic'

/**
 * Who made a call, tagged on `tool/call` events and `RunResult.calls` as the vendors tag theirs: a program's
 * sub-call (`caller_id`: its run), or a direct call (native, `rt.callTool`, a ReAct action).
 */
export type ToolCaller = { type: 'program'; caller_id: string } | { type: 'direct' }

/** MCP's tool annotations; an absent hint means the cautious default (may write, destroy, reach out). */
export interface ToolAnnotations {
  title?: string
  /** It changes nothing. */
  readOnlyHint?: boolean
  /** It may delete or overwrite (meaningful when not read-only). */
  destructiveHint?: boolean
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean
  /** It reaches things outside the workspace or host (the network, other services). */
  openWorldHint?: boolean
}

/** Typed helper: `defineTool({ ... })` returns its argument unchanged. */
export type AnyToolDefinition = ToolDefinition<unknown, unknown>

/** An errno-style failure: the one shape every refusal and tool error takes. */
export interface ToolError {
  code: string
  message: string
}

/** The outcome of one call. Dispatch never throws: every failure is a value of this type. */
export type ToolResult = { ok: true; value: JsonValue; concludesTurn?: boolean } | { ok: false; error: ToolError }

/** One tool call as hooks see it. */
export interface ToolCall {
  id: string
  name: string
  args: JsonValue
  origin: CallOrigin
  /** The id of the `run_code` call that issued this sub-call. */
  parentId?: string
  /** Set on the logged `tool/call` event: who made the call. */
  caller?: ToolCaller
  /**
   * Set on the logged `tool/call` event of a tool that declares side effects (`destructiveHint`, or no
   * `readOnlyHint`): a failed run's observation marks it among the calls that completed.
   */
  sideEffects?: true
}

/**
 * What a pre-execute hook may ask a person (or the embedder) before the call runs: a message, plus any
 * JSON details a front door may show. The call waits for the answer; the wait is not the program's time.
 */
export interface ApprovalAsk {
  message: string
  [detail: string]: JsonValue
}

/**
 * What a pre-execute hook may answer: nothing (allow), a denial, rewritten arguments, or a question that
 * must be answered yes before the call runs (no: `EACCES`, "not approved: …").
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing (a plain `() => {}`) allows the call
export type PreExecuteDecision = void | undefined | { deny: ToolError } | { args: JsonValue } | { ask: ApprovalAsk }
export type PreExecuteHook = (call: Readonly<ToolCall>) => PreExecuteDecision | Promise<PreExecuteDecision>
/** A post-execute hook may return a replacement result. */
export type PostExecuteHook = (
  call: Readonly<ToolCall>,
  result: ToolResult,
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing keeps the result
) => void | undefined | ToolResult | Promise<void | undefined | ToolResult>

/** One pending question, as an `onApproval` handler (or `rt.pendingApprovals()`) sees it. */
export interface ApprovalRequest {
  /** The call waiting for the answer; `rt.approve(callId)` / `rt.deny(callId, reason)` answer it. */
  callId: string
  name: string
  args: JsonValue
  origin: CallOrigin
  /** The program run the call belongs to (sub-calls), if any. */
  runId?: string
  message: string
  /** The ask's other fields. */
  details: { [key: string]: JsonValue }
}

/** An answer: yes/no, or with a reason (shown to the model on a no) and `always` (yes to this tool from now on). */
export type ApprovalAnswer = boolean | { approve: boolean; reason?: string; always?: boolean }

/** Answers approval requests. `signal` aborts when the call no longer needs the answer (run over, timeout). */
export type ApprovalHandler = (request: ApprovalRequest, signal: AbortSignal) => ApprovalAnswer | Promise<ApprovalAnswer>

export interface HookMap {
  'pre-execute': PreExecuteHook
  'post-execute': PostExecuteHook
}
export type HookName = keyof HookMap

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'
export interface LogEntry {
  level: LogLevel
  text: string
}

/** Run error kinds. `sandbox_unavailable` is infrastructure, never "your code failed". */
export type RunErrorKind = 'compile' | 'type' | 'runtime' | 'timeout' | 'memory' | 'aborted' | 'sandbox_unavailable'

export interface RunError {
  kind: RunErrorKind
  message: string
  /** `SANDBOX_UNAVAILABLE` for kind sandbox_unavailable; an errno for kernel denials. */
  code?: string
  /** 1-based line in the user's source, where known. */
  line?: number
  column?: number
}

/** One sub-call as the RunResult reports it, in issue order. */
export interface CallRecord {
  id: string
  name: string
  args: JsonValue
  ok: boolean
  result?: JsonValue
  error?: ToolError
  durationMs: number
  /** Always `{ type: 'program', caller_id: <run id> }` here: these are a program's sub-calls. */
  caller?: ToolCaller
  /** The tool declares side effects (`destructiveHint`, or no `readOnlyHint`): repeating the call repeats them. */
  sideEffects?: true
}

/** What `runCode` returns and `codeact run --json` prints. */
export interface RunResult {
  ok: boolean
  /** The program's return value (JSON), or undefined. */
  value: JsonValue | undefined
  logs: LogEntry[]
  calls: CallRecord[]
  error: RunError | null
  /** The text a model reads. Rebuildable from `events` alone. */
  observation: string
  /** This run's slice of the runtime's event log. */
  events: RunEvent[]
  /** What the run did to the workspace (runs with a workspace only), workspace-relative, sorted. */
  changes?: FileChange[]
  /** What became of those changes: see `ChangeOutcome`. */
  applied?: ChangeOutcome
}

/**
 * One path a run changed. Folders end in `/`. `diff` (a unified diff, `--- a/… +++ b/…`) is filled in
 * for dry runs and reviews, not for runs that applied directly.
 */
export interface FileChange {
  path: string
  change: 'created' | 'modified' | 'deleted'
  diff?: string
}

/**
 * `applied`: the changes are in the workspace (a direct run, or an atomic run that ended ok);
 * `discarded`: an atomic run failed and the workspace is exactly as before; `dry-run`: nothing was
 * written; `partial`: a review applied some of them (`changes` lists the applied ones).
 */
export type ChangeOutcome = 'applied' | 'discarded' | 'dry-run' | 'partial'

/** How a run's workspace changes land: directly (default), all at the end if it ends ok, or not at all. */
export type ChangeMode = 'apply' | 'atomic' | 'dry-run'

/** The append-only event log's entries. */
export interface RunEvent<T extends EventType = EventType> {
  seq: number
  time: number
  type: T
  data: EventData[T]
}

export interface EventData {
  'run/start': {
    runId: string
    /** The native `run_code` call this run answers, if any. */
    parentId?: string
    /** Who the run is for (an MCP session id …), when the run names one: for service logs and metrics. */
    caller?: string
    sandbox: string
    code: string
    /** The observation cap in force, so the observation can be rebuilt from the log. */
    maxObservationBytes: number
    /** A session run: its session, the seed of its Math.random, and whether it began a fresh history (first run, after reset). */
    session?: RunSessionMark
  }
  'run/end': {
    runId: string
    ok: boolean
    value?: JsonValue
    /** Why the value could not be reported (BigInt, cycle, function ...). */
    valueNote?: string
    error: RunError | null
    /** Bytes of console output dropped by the output cap. */
    droppedOutputBytes: number
    /** Diagnostics appended to the observation (type-check warnings). */
    notes?: string[]
    /** The run's workspace changes (without diffs) and what became of them. */
    changes?: FileChange[]
    applied?: ChangeOutcome
    /** The staging mode, when not `apply`, so the observation can say what it means. */
    changeMode?: ChangeMode
    /** Session runs: the Date.now values the program read, in order (a restore replays them). */
    clock?: number[]
  }
  'tool/call': ToolCall
  'tool/result': { id: string; name: string; result: ToolResult; durationMs: number }
  console: { runId: string; level: LogLevel; text: string }
  /** A refusal inside a call or a program that did not fail the call (kernel EROFS in bash, caught EACCES …). */
  denial: { runId?: string; callId?: string; code: string; message: string }
  'approval/request': { runId?: string; callId: string; name: string; message: string; details?: { [key: string]: JsonValue } }
  /** `by`: who answered — the embedder (`approve`/`deny`), a handler, an earlier "always", or nobody in time. */
  'approval/answer': {
    runId?: string
    callId: string
    name: string
    approved: boolean
    reason?: string
    by: 'embedder' | 'handler' | 'always' | 'timeout' | 'cancelled'
  }
  'batch/start': {
    batchId: string
    ids: string[]
    /** The SDK shape of the calls: openai, responses, anthropic, langchain, mixed; `call` for rt.callTool. */
    shape: string
  }
  'batch/end': { batchId: string; concludesTurn: boolean; aborted: boolean }
  /**
   * A ReAct turn (`rt.executeText`): the model's whole text (its thoughts included), the calls its actions
   * became, and what else the observation needs (a final answer, or why nothing ran), so replay rebuilds it.
   */
  'react/start': { turnId: string; text: string; format: string; ids: string[]; final?: string; problem?: string }
  'react/end': { turnId: string }
  /** A session began afresh (`reset()`, `close()`, a restore that failed): its earlier runs are not replayed again. */
  'session/end': { id: string; caller?: string; reason: 'reset' | 'close' | 'unrestorable' }
}
export type EventType = keyof EventData

/** How `run/start` marks a session run: what a restore (from memory or a `logFile`) needs to replay it. */
export interface RunSessionMark {
  id: string
  /** The caller it belongs to (sessions are per caller and id), when the runs name one. */
  caller?: string
  /** Math.random's seed for this run. */
  seed: string
  /** This run began the session's history (its first run, or the first after `reset()`); earlier runs are not replayed. */
  fresh?: boolean
}

/**
 * Limits of a runtime's sessions (`createRuntime({ sessions })`). A session's realm is freed when it has been
 * idle `idleMs`, or when more than `max` realms are live (the least recently used idle one goes first); its
 * history stays, and its next run restores it by replay.
 */
export interface SessionLimits {
  /** Live session realms at once (default 64). */
  max: number
  /** Idle time after which a session's realm is freed (default 10 min). */
  idleMs: number
  /** Heap limit of each session's realm (default: `limits.memoryMb`, 128 MB). */
  memoryMb: number
}

/** Limits of one run. */
export interface Limits {
  /**
   * The program's own time: running JS and waiting on nothing but itself. Time in which the program only
   * waits on tool calls or approvals is not charged (each call has its own timeout). Default 30 s.
   */
  timeoutMs: number
  /** The whole run's wall clock, whatever it waits on (tool calls and approvals included). Default 10 min. */
  deadlineMs: number
  /** Heap limit of the sandbox. Default 128 MB. */
  memoryMb: number
  /** Console output kept per run; the rest is cut with a marker. Default 1 MiB. */
  maxOutputBytes: number
  /** Tool calls a run may make. Default 100,000 (a 10,000-file batch fits). */
  maxToolCalls: number
  /** Sub-calls (and native calls) that may run at once. Default 10. */
  maxParallelToolCalls: number
  /** The observation text's cap. Default 32 KiB. */
  maxObservationBytes: number
  /** The program source's cap. Default 512 KiB. */
  maxSourceBytes: number
  /**
   * Bytes of files a staged run (`--dry-run`, `--review`) reads to show its diffs, all files together. A
   * file that does not fit what is left, or a sparse one, is summarised (size, sparse) instead of read.
   * Default 32 MiB.
   */
  maxDiffBytes: number
  /**
   * The same call (same tool, same arguments) made again and again, each once the last had answered: a
   * loop that does not advance. The run stops past this many in a row. Default 100.
   */
  maxIdenticalCalls: number
}

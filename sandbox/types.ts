/**
 * The sandbox seam. A backend runs compiled JavaScript (the body of an async function, see
 * `runtime/compile.ts`) and reaches the host only through `SandboxHost`: JSON text in, JSON text out.
 * A new backend is a new folder that implements `Sandbox`, declares its `capabilities` and passes
 * `test/contract`.
 *
 * The runtime never asks a backend's name; it asks its capabilities, and each one decides one thing:
 * - `nodeModules`: a program may import node:fs, node:child_process …, and its check loads Node's types;
 *   without it such an import is a compile error before anything runs.
 * - `effectsOnlyThroughHost`: the program may start while its type check goes on (runtime/run-verdict.ts
 *   holds its calls and lines until the verdict); without it nothing starts before the verdict. A session
 *   restore also says whether the replay ran anything again.
 * - `programWrites`: a run's changes are read from the whole tree afterwards (the program's own writes are
 *   `ownEffects`), not only from the file tools' calls; staged `bash` is refused on the host.
 * - `sessions`: `endSession` frees a session's realm; without it a session run answers `sandbox_unavailable`.
 * - `stagesItself`: `stageRun` serves dry-run and atomic runs (the backend mounts the staged view); without
 *   it the host stages the workspace tools' calls itself.
 */
import type { LogEntry, RunErrorKind, ToolError } from '../vocabulary/types.js'

/** What the sandbox may ask of the host while a program runs. Only JSON text crosses. */
export interface SandboxHost {
  /**
   * Issue one tool call, in the order the program issued it. Resolves to the JSON text of a
   * `ToolResult` (`{"ok":true,"value":…}` or `{"ok":false,"error":{"code","message"}}`). Never rejects.
   */
  callTool(name: string, argsJson: string): Promise<string>
  /** Console output as the program writes it, already capped by the backend (batched freely). */
  log(entries: LogEntry[]): void
  /**
   * Where the host may hold the program's calls for a type check still going on (runtime/run-verdict.ts):
   * the backend's `listener(true)` when it starts holding them, `listener(false)` when it lets them go. The
   * program's clock and timers stand still in between (guest/held-clock.ts): the wait is not the program's.
   */
  onHold?(listener: (holding: boolean) => void): void
}

export interface SandboxLimits {
  /**
   * The program's own time: wall time while no tool call of it is pending (and its CPU time, always).
   * Time spent waiting on the host (tool calls, approvals) is not charged to it.
   */
  timeoutMs: number
  /** The whole run's wall clock, whatever it waits on. Unset: no bound beyond `timeoutMs`'s clock. */
  deadlineMs?: number
  memoryMb: number
  maxOutputBytes: number
}

export interface SandboxRunRequest {
  runId: string
  /** Output of `compile()`: JS that evaluates to an async function `(tools, ToolCallError, console) => …`. */
  js: string
  /** Tool names to expose as `tools.<name>`. */
  toolNames: readonly string[]
  limits: SandboxLimits
  /**
   * Who the run is for (an MCP session, a user, a tenant). Runs of different callers never share a
   * sandbox process, so one caller's crash cannot end another's runs. Unset: the runtime's one caller.
   */
  callerId?: string
  /**
   * A session run (REPL semantics: the program's top-level bindings were rewritten into assignments to the
   * realm's globals, so they outlive the run). Unset: a stateless run, in a fresh realm as always.
   * A 'new' realm's heap limit is this request's `limits.memoryMb` (the runtime passes the session limit).
   */
  session?: SandboxSessionRef
  /**
   * Session runs: Math.random is a PRNG seeded with `seed`; Date.now()/new Date() return `clock`'s values in
   * order first (a replay), then the real clock. The outcome's `clock` lists every value the run read.
   * Both are run-length encoded by the prelude: a negative entry -k repeats the value before it k more times.
   */
  entropy?: SandboxEntropy
}

export interface SandboxSessionRef {
  id: string
  /**
   * 'new': start a fresh realm for this session (discard any old one); 'existing': run in the realm the
   * session's earlier runs left — if it is gone (memory kill, crash, expiry), answer `session_lost` at once
   * without running anything.
   */
  realm: 'new' | 'existing'
}

export interface SandboxEntropy {
  seed: string
  clock?: number[]
}

/**
 * What a sandbox may answer besides the run's own kinds: `session_lost` (seam-only: the session's realm is
 * gone; nothing ran; the runtime restores the session and retries, the user never sees it).
 */
export type SandboxErrorKind = RunErrorKind | 'session_lost'

/** A refusal the kernel or the policy made inside the sandbox, reported even if the program caught it. */
export type SandboxDenial = ToolError

export type SandboxOutcome =
  | {
      ok: true
      /** JSON text of the returned value; undefined when the program returned nothing. */
      valueJson: string | undefined
      /** Set when the value could not be expressed as JSON (BigInt, cycle, function …). */
      valueNote?: string
      droppedOutputBytes: number
      denials?: SandboxDenial[]
      /** What the program did itself, past the host (see the failed outcome's). */
      ownEffects?: string[]
      /** Session runs: the Date.now values the run read, in order (the log keeps them for a replay). */
      clock?: number[]
    }
  | {
      ok: false
      error: {
        kind: SandboxErrorKind
        message: string
        code?: string
        /** For kind `timeout`: which budget ran out (the program's own time, or the run's deadline). */
        budget?: 'program' | 'deadline'
        /** The guest's stack (compiled-JS positions); the runtime maps it to the user's source. */
        stack?: string
      }
      droppedOutputBytes: number
      denials?: SandboxDenial[]
      /**
       * What the program did itself, past the host (a backend whose programs have Node): files changed
       * through node:fs, processes started — e.g. `appendFileSync /workspace/log.txt`, `spawn /bin/sh`.
       */
      ownEffects?: string[]
      /** Session runs: the Date.now values the run read before it ended. */
      clock?: number[]
    }

/** What a backend offers, declared once; the runtime asks these instead of a backend's name. */
export interface SandboxCapabilities {
  /** The program may import Node's built-in modules (node:fs, node:child_process …); its check loads Node's types. */
  readonly nodeModules: boolean
  /** Every effect of the program is a tool call or console line through the host, so it may start before the verdict. */
  readonly effectsOnlyThroughHost: boolean
  /** The program writes the mounted workspace itself (its own writes are reported as `ownEffects`). */
  readonly programWrites: boolean
  /** Session runs are served (`endSession`); without it a session request answers `sandbox_unavailable`. */
  readonly sessions: boolean
  /** Staged runs are served by the backend itself (`stageRun`), not by the host's staging. */
  readonly stagesItself: boolean
}

export interface Sandbox {
  /** `isolate`, `docker`, …: for the log and messages only; behaviour follows `capabilities`. */
  readonly name: string
  /** What this backend offers (see the top of this file for what each one changes). */
  readonly capabilities: SandboxCapabilities
  /**
   * Get ready to run (spawn the supervised process, fill a warm pool). Safe to call more than once.
   * Resolves once ready; if the backend cannot start, resolves and lets `run` report
   * `sandbox_unavailable` — the seam never throws for infrastructure reasons.
   */
  start(): Promise<void>
  /**
   * Run one program. Never rejects: every failure, including "could not start", is an outcome.
   * When `signal` aborts, the program stops and the outcome is `aborted`.
   */
  run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome>
  /**
   * Services this backend offers to tool implementations for calls made during run `runId`
   * (or outside any run when `runId` is undefined), e.g. `{ workspace: WorkspaceOps }` for Docker.
   */
  services?(runId: string | undefined): Record<string, unknown>
  /**
   * Free a session's realm (its isolate; its container on Docker). Idempotent; an unknown id is no error.
   * A backend without it cannot run sessions (`session` requests answer `sandbox_unavailable`).
   */
  endSession?(id: string): Promise<void>
  /**
   * For backends that mount the workspace themselves (Docker): serve run `runId` a staged view — the real
   * workspace as the read-only lower layer, `stage.upper` as the layer every write lands in — so the
   * program, its file tools and its `bash` all see the view and the real tree is never written. Returns
   * why it cannot (the run must then not start), or a handle whose `settled` resolves once nothing of the
   * run can write the stage any more (true), or that could not be made sure (false: nothing may be applied).
   */
  stageRun?(runId: string, stage: { upper: string; work: string }): StagedRun | string
  /**
   * Can a run start now (a readiness probe's question)? Undefined when yes, else why not: the isolate
   * backend has or can spawn a child process, the Docker backend's engine answers. Never throws.
   */
  ready?(): Promise<string | undefined>
  /** Stop everything this backend started. Runs still in flight end as `aborted`. */
  close(): Promise<void>
}

export interface StagedRun {
  /** What the stage's upper folder holds afterwards: an overlay's upper layer, or a whole copy of the tree. */
  readBack: 'overlay' | 'copy'
  settled(): Promise<boolean>
  /** The run never started: forget the stage (settles true). */
  cancel(): void
}

/** Thrown by nothing; returned as the outcome when a backend cannot start. */
export function unavailable(message: string, droppedOutputBytes = 0): SandboxOutcome {
  return { ok: false, error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE', message }, droppedOutputBytes }
}

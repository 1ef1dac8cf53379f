/**
 * What one run is given: the runtime's parts (built once by createRuntime) and a caller's options for that
 * run. Every stage of a run (run-prepare, run-verdict, run-execute, run-finish) reads these.
 */
import type { Sandbox } from '../sandbox/types.js'
import type { WorkspaceOps } from '../sandbox/workspace/ops.js'
import type { ApprovalHandler, ChangeMode, Limits } from '../vocabulary/types.js'
import type { ReviewChange, startRunChanges, WorkspaceRunEnv } from './changes/run-changes.js'
import type { DispatchEnv } from './dispatch.js'
import type { ProgramPrep, RuntimeTypecheck } from './typecheck.js'

export interface RunCodeDeps {
  env: DispatchEnv
  sandbox: Sandbox
  limits: Limits
  /** With the check on: it also prepares programs (normalise, shape check and type check in one request). */
  typecheck?: ProgramPrep &
    Partial<Pick<RuntimeTypecheck, 'prepareEarly'>> & {
      mode: 'error' | 'warn'
    }
  /** Prepares programs off the host's thread when the check is off (runtime/typecheck.ts's createProgramPrep). */
  programs: ProgramPrep
  /** A run started or ended (createRuntime's `collectWhenIdle`: runtime/host-quiet.ts); absent, nothing of the process is touched. */
  noteActivity?: () => void
  /** The workspace, when the runtime has one: every run reports its changes and may be staged. */
  workspace?: WorkspaceRunEnv & {
    /** The runtime's default (`createRuntime({ changes })`). */
    mode: ChangeMode
    /** Per-run ops the workspace tools use instead of the backend's (`ctx.services.workspace`). */
    runOps: Map<string, WorkspaceOps>
    /** runtime/changes/run-changes.ts's, passed in: a runtime without a workspace never loads staging. */
    startRunChanges: typeof startRunChanges
  }
}

/** A caller's options for one run, but the session it runs in (run-code.ts's RunCodeOptions adds that). */
export interface RunOptions {
  signal?: AbortSignal
  /** The id of the native `run_code` call this run answers; sub-calls are logged under the run's id. */
  parentId?: string
  limits?: Partial<Limits>
  /**
   * Who the run is for (an MCP session id, a user, a tenant). Runs of different callers never share a
   * sandbox process; runs without one are the runtime's own caller and share.
   */
  caller?: string
  /**
   * How this run's workspace changes land: `apply` (directly, as they happen), `atomic` (all at the end,
   * only if the run ends ok), `dry-run` (never; RunResult.changes carries a diff per file). Default: the
   * runtime's `changes` option.
   */
  changes?: ChangeMode
  /** Review each change of an atomic run that ended ok before it is applied (implies `atomic`). */
  review?: ReviewChange
  /** Answers the approvals this run's calls ask for (a front door's prompt); else the runtime's `onApproval`. */
  onApproval?: ApprovalHandler
}

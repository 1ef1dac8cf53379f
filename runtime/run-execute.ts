/**
 * The execute stage: the workspace staged for the run (when it has one), the program run in the sandbox
 * with the run's bridge as its host, and — for a program that started before its verdict — the verdict
 * awaited before anything of the run is final.
 */
import { WorkspaceError } from '../sandbox/workspace/ops.js'
import type { SandboxHost, SandboxOutcome, SandboxRunRequest } from '../sandbox/types.js'
import type { RunError } from '../vocabulary/types.js'
import { timerMs } from '../vocabulary/timer.js'
import type { RunChanges } from './changes/run-changes.js'
import { openBridge } from './run-bridge.js'
import type { OpenRun } from './run-open.js'
import type { RunCodeDeps } from './run-inputs.js'
import { runMarks } from './run-marks.js'
import type { PreparedRun } from './run-prepare.js'
import { awaitVerdict } from './run-verdict.js'
import type { SessionRun } from './session-run.js'

/** Time the backstop allows on top of the run's deadline: a container's start-up is not the program's. */
const BACKSTOP_GRACE_MS = 30_000

/** How the program ended, as the execute stage saw it (run-finish.ts says it as the run's result). */
export interface Executed {
  ok: true
  outcome: SandboxOutcome
  /** A call limit stopped the program (`maxToolCalls`, `maxIdenticalCalls`): the error it ends with. */
  overLimit: RunError | undefined
  /** The tools still running when the sandbox answered (a timeout's message names them). */
  pendingAtEnd: string[]
  /** The verdict's notes (the prepare stage's come first). */
  notes: string[]
  /** The run's staged or tracked workspace changes, still to settle. */
  changes?: RunChanges
}

type Prepared = PreparedRun & { ok: true }

export async function executeRun(
  deps: RunCodeDeps,
  run: OpenRun,
  prepared: Prepared,
  session?: SessionRun,
): Promise<Executed | { ok: false; error: RunError }> {
  const { env } = deps
  const { runId, options } = run
  const unscope = options.onApproval && env.approvals ? env.approvals.scope(runId, options.onApproval) : () => {}
  const bridge = openBridge(env, run, prepared.program)
  const mode = deps.typecheck?.mode ?? 'error'
  const verdict = prepared.pendingVerdict && awaitVerdict(prepared.pendingVerdict, mode, prepared.text, bridge.host, bridge.cancel)
  const staged = await stageWorkspace(deps, run)
  if (!staged.ok) {
    bridge.release()
    unscope()
    // A type error is said first, as when the check came before staging.
    const judged = verdict && (await verdict.judged)
    return { ok: false, error: judged?.stop ?? staged.error }
  }
  const raced = await runSandbox(deps, run, prepared.program.js, verdict?.host ?? bridge.host, bridge.signal, session)
  // A program that finished first waits for its verdict (bounded by the check's budget); what it held goes
  // through (or is dropped) before the run is over, as if nothing had waited.
  const judged = verdict && (await verdict.judged)
  if (judged?.stop) {
    // Nothing of the attempt reached the world: no call, no line, no change; the result is the type error.
    bridge.release()
    unscope()
    if (staged.changes) {
      deps.workspace!.runOps.delete(runId)
      await staged.changes.finish(false)
    }
    return { ok: false, error: judged.stop }
  }
  const pendingAtEnd = await bridge.close(raced === 'timeout')
  unscope()
  const outcome: SandboxOutcome =
    raced === 'timeout'
      ? {
          ok: false,
          error: { kind: 'timeout', budget: 'deadline', message: `the sandbox did not stop within ${run.limits.deadlineMs} ms` },
          droppedOutputBytes: 0,
        }
      : raced
  const notes = judged ? judged.notes : []
  return { ok: true, outcome, overLimit: bridge.overLimit, pendingAtEnd, notes, ...(staged.changes ? { changes: staged.changes } : {}) }
}

/** The run's view of the workspace: staged (atomic, dry-run) or tracked (apply); its ops serve the run's tools. */
async function stageWorkspace(
  deps: RunCodeDeps,
  run: OpenRun,
): Promise<{ ok: true; changes?: RunChanges } | { ok: false; error: RunError }> {
  const ws = deps.workspace
  if (!ws) return { ok: true }
  try {
    const changes = await ws.startRunChanges(ws, run.changeMode, run.runId, run.limits.maxDiffBytes)
    ws.runOps.set(run.runId, changes.ops)
    return { ok: true, changes }
  } catch (err) {
    const what = run.changeMode === 'atomic' ? 'an atomic' : 'a dry'
    const error: RunError = {
      kind: 'sandbox_unavailable',
      code: err instanceof WorkspaceError && err.code === 'EPERM' ? 'EPERM' : 'SANDBOX_UNAVAILABLE',
      message: `could not stage the workspace for ${what} run: ${err instanceof Error ? err.message : String(err)}`,
    }
    return { ok: false, error }
  }
}

/** Runs the program (in its session's realm, for a session run); 'timeout' if the backend stopped answering. */
async function runSandbox(
  deps: RunCodeDeps,
  run: OpenRun,
  js: string,
  host: SandboxHost,
  signal: AbortSignal,
  session?: SessionRun,
): Promise<SandboxOutcome | 'timeout'> {
  const { limits } = run
  await deps.sandbox.start()
  const request: SandboxRunRequest = {
    runId: run.runId,
    js,
    toolNames: deps.env.registry.programNameList(),
    limits: {
      timeoutMs: limits.timeoutMs,
      deadlineMs: limits.deadlineMs,
      memoryMb: limits.memoryMb,
      maxOutputBytes: limits.maxOutputBytes,
    },
    ...(run.options.caller !== undefined ? { callerId: run.options.caller } : {}),
  }
  runMarks.at?.('sandbox')
  const runOnce = (r: SandboxRunRequest) => deps.sandbox.run(r, host, signal)
  const running = session ? session.run(request, runOnce, signal) : runOnce(request)
  // The backend owns the deadline (its clock starts when the program does); this backstop only catches a
  // backend that stops answering.
  let timer: NodeJS.Timeout | undefined
  const raced = await new Promise<SandboxOutcome | 'timeout'>((resolve, reject) => {
    timer = setTimeout(() => resolve('timeout'), timerMs(limits.deadlineMs + BACKSTOP_GRACE_MS))
    running.then(resolve, reject)
  })
  clearTimeout(timer)
  runMarks.at?.('ran')
  return raced
}

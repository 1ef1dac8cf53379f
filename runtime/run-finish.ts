/**
 * The finish stage: what the execute stage saw (run-execute.ts) said as the run's RunResult.
 */
import type { SandboxOutcome } from '../sandbox/types.js'
import type { JsonValue, RunResult } from '../vocabulary/types.js'
import type { CompiledProgram } from './compile.js'
import { describeFailure, withJoinedLinesHint } from './run-errors.js'
import type { Executed } from './run-execute.js'
import type { RunCodeDeps } from './run-inputs.js'
import type { OpenRun } from './run-open.js'
import type { SessionRun } from './session-run.js'

/**
 * The finish stage: the sandbox's denials logged, the session's clock kept, the workspace's changes settled
 * (applied only when the run ended ok), and the outcome said as the run's value or as its failure in the
 * user's lines.
 */
export async function finishRun(
  deps: RunCodeDeps,
  run: OpenRun,
  executed: Executed,
  prepared: { program: CompiledProgram; text: string; notes: string[] },
  session?: SessionRun,
): Promise<RunResult> {
  const { outcome, overLimit } = executed
  const notes = [...prepared.notes, ...executed.notes]
  for (const d of outcome.denials ?? []) deps.env.log.append('denial', { runId: run.runId, code: d.code, message: d.message })
  if (session) {
    notes.unshift(...session.notes)
    run.clock = outcome.clock?.filter((n) => typeof n === 'number' && Number.isFinite(n))
  }
  if (executed.changes) {
    deps.workspace!.runOps.delete(run.runId)
    run.finished = await executed.changes.finish(outcome.ok && !overLimit, run.options.review)
  }
  if (outcome.ok && !overLimit) {
    const value = outcome.valueJson === undefined ? undefined : (JSON.parse(outcome.valueJson) as JsonValue)
    return run.end({
      ok: true,
      ...(value !== undefined ? { value } : {}),
      ...(outcome.valueNote ? { valueNote: outcome.valueNote } : {}),
      error: null,
      droppedOutputBytes: outcome.droppedOutputBytes,
      ...(notes.length ? { notes } : {}),
    })
  }
  const error = overLimit
    ? { ...overLimit }
    : describeFailure(outcome as SandboxOutcome & { ok: false }, prepared.program, run.limits, executed.pendingAtEnd)
  if (error.kind === 'runtime' && error.line !== undefined) error.message = withJoinedLinesHint(error.message, prepared.text, [error.line])
  if (session && error.kind === 'memory') error.message = session.memoryHint(error.message)
  return run.end({ ok: false, error, droppedOutputBytes: outcome.droppedOutputBytes, ...(notes.length ? { notes } : {}) })
}

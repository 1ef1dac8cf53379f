/**
 * One program run, in four stages: prepare (one text, proven, compiled, judged: run-prepare.ts) → verdict
 * (a program that started before its check waits for it: run-verdict.ts) → execute (the workspace staged,
 * the sandbox run with the host bridge: run-execute.ts) → finish (the outcome as a RunResult: run-finish.ts).
 * Every outcome, including a sandbox that could not start, is a RunResult; this function does not throw
 * for anything the program does.
 */
import type { RunResult } from '../vocabulary/types.js'
import { executeRun } from './run-execute.js'
import { finishRun } from './run-finish.js'
import { openRun } from './run-open.js'
import type { RunCodeDeps, RunOptions } from './run-inputs.js'
import { runMarks } from './run-marks.js'
import { prepareRun } from './run-prepare.js'
import type { Session } from './session.js'
import type { SessionRun } from './session-run.js'

export type { RunCodeDeps } from './run-inputs.js'

export interface RunCodeOptions extends RunOptions {
  /** Run in this session (a handle from `rt.session()`, or its id): the bindings of its earlier runs are in scope. */
  session?: Session | string
}

/** `session`: a session run (runtime/sessions.ts resolves `options.session` to it). */
export async function runCode(deps: RunCodeDeps, code: string, options: RunCodeOptions = {}, session?: SessionRun): Promise<RunResult> {
  const run = openRun(deps, code, options, session)
  const prepared = await prepareRun(deps, run, code, session)
  if (!prepared.ok) return run.stop(prepared.error)
  runMarks.at?.('staged')
  // The verdict stage runs inside execute: a program may start while its check goes on.
  const executed = await executeRun(deps, run, prepared, session)
  if (!executed.ok) return run.stop(executed.error)
  return finishRun(deps, run, executed, prepared, session)
}

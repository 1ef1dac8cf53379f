/**
 * The prepare stage: one program text from what the model wrote, proven to be one function, compiled, and
 * (unless it may start before it) judged by its type check. What fails here ends the run before anything
 * of it ran.
 */
import type { RunError } from '../vocabulary/types.js'
import { compile, compiledProgram, type CompiledProgram } from './compile.js'
import { raiseHint } from './limits.js'
import { explainCompileError, judge } from './run-errors.js'
import type { OpenRun } from './run-open.js'
import type { RunCodeDeps } from './run-inputs.js'
import type { SessionRun } from './session-run.js'
import type { PreparedProgram, TypeCheckOutcome } from './typecheck.js'

export type PreparedRun =
  | {
      ok: true
      /** The one program text: what the checker checks is what the compiler compiled (program/normalise.ts). */
      text: string
      program: CompiledProgram
      /** The check's notes that do not block (warn mode, advisories), when its verdict is already in. */
      notes: string[]
      /** The verdict still to come: the program may start before it (run-verdict.ts holds its effects). */
      pendingVerdict?: Promise<TypeCheckOutcome>
    }
  | { ok: false; error: RunError }

const CANCELLED: RunError = { kind: 'aborted', message: 'the run was cancelled before it started' }

export async function prepareRun(deps: RunCodeDeps, run: OpenRun, code: string, session?: SessionRun): Promise<PreparedRun> {
  const { limits, options } = run
  if (Buffer.byteLength(code) > limits.maxSourceBytes) {
    const message = `the program is larger than the ${limits.maxSourceBytes}-byte source limit; ${raiseHint('maxSourceBytes')}`
    return { ok: false, error: { kind: 'compile', message } }
  }
  if (options.signal?.aborted) return { ok: false, error: CANCELLED }
  if (session && !deps.sandbox.capabilities.sessions) {
    const message = `the ${deps.sandbox.name} sandbox does not serve sessions; nothing ran (run without a session)`
    return { ok: false, error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE', message } }
  }
  const { prepared, pendingVerdict } = await prepareText(deps, code, session)
  const shaped = prepared.normalised
  if (shaped === undefined)
    return { ok: false, error: { kind: 'compile', message: prepared.unprepared ?? 'the program could not be prepared; nothing ran' } }
  if (shaped.problem) return { ok: false, error: { kind: 'compile', ...shaped.problem } }
  // Compiled in the same thread request; if the thread stopped before (a check past its budget), compiled here.
  const prep = deps.typecheck ?? deps.programs
  const compiled = prepared.compiled
    ? compiledProgram(prepared.compiled, shaped.text)
    : await compile(shaped.text, { shapes: prep.shapes, ...(prepared.shape ? { sourceShape: prepared.shape } : {}) })
  if (!compiled.ok) {
    const checked = prepared.outcome ?? (await pendingVerdict)
    return { ok: false, error: explainCompileError(shaped.text, compiled.error, checked) }
  }
  const notes: string[] = []
  if (deps.typecheck && prepared.outcome) {
    const judged = judge(prepared.outcome, deps.typecheck.mode, shaped.text)
    if (judged.stop) return { ok: false, error: judged.stop }
    notes.push(...judged.notes)
  }
  // Cancelled while it was being prepared (a check takes a moment; a REPL's Ctrl-C lands here): nothing runs.
  if (options.signal?.aborted) return { ok: false, error: CANCELLED }
  return { ok: true, text: shaped.text, program: compiled.program, notes, ...(pendingVerdict ? { pendingVerdict } : {}) }
}

/**
 * Normalising, the wrapper's shape checks, compiling and the type check run in the checker's thread, the
 * check on or off (program/prepare.ts); what the thread did not finish within its budget fails closed (an
 * unproven wrapper never runs). Where every effect of the program goes through this host, its check may
 * go on while it runs: not a session cell (it changes its realm's globals before any call).
 */
async function prepareText(
  deps: RunCodeDeps,
  code: string,
  session?: SessionRun,
): Promise<{ prepared: PreparedProgram; pendingVerdict?: Promise<TypeCheckOutcome> }> {
  const { nodeModules, effectsOnlyThroughHost } = deps.sandbox.capabilities
  const prep = deps.typecheck ?? deps.programs
  if (deps.typecheck?.prepareEarly && !session && effectsOnlyThroughHost) {
    const early = await deps.typecheck.prepareEarly(code, nodeModules)
    return early.prepared.outcome === undefined ? { prepared: early.prepared, pendingVerdict: early.verdict } : { prepared: early.prepared }
  }
  return { prepared: session ? await session.prepare(prep, code, nodeModules) : await prep.prepare(code, nodeModules) }
}

/**
 * How a run's failures are said: a type check's verdict (the type error that stops a run, or the notes it
 * ran with), a syntax error with the checker's hints, and a sandbox's failure in the user's lines with the
 * budget that ran out and what raises it.
 */
import { formatTypeDiagnostics } from '../program/diagnostics.js'
import { pythonLine, pythonMessage } from '../program/python.js'
import { joinedLinesHint } from '../program/typecheck-hints.js'
import type { SandboxOutcome } from '../sandbox/types.js'
import type { Limits, RunError } from '../vocabulary/types.js'
import { type CompiledProgram, locateInSource } from './compile.js'
import { raiseHint } from './limits.js'
import type { TypeCheckOutcome } from './typecheck.js'

/** What a check's outcome means for the run: the type error that stops it (in `error` mode), or the notes it ran with. */
export function judge(checked: TypeCheckOutcome, mode: 'error' | 'warn', text: string): { stop?: RunError; notes: string[] } {
  if (checked.count > 0 && mode === 'error') {
    const message = withJoinedLinesHint(`the program does not type-check; nothing ran.\n${checked.report}`, text, checked.lines)
    return { stop: { kind: 'type', message }, notes: [] }
  }
  const notes: string[] = []
  if (checked.count > 0) notes.push(`Type-check warnings (the program ran anyway):\n${checked.report}`)
  if (checked.advisory) notes.push(`Type-check notes (the program ran; nothing here stopped it):\n${checked.advisory}`)
  return { notes }
}

export function withJoinedLinesHint(message: string, source: string, lines: readonly number[] | undefined): string {
  const hint = lines?.length ? joinedLinesHint(source, lines) : undefined
  return hint ? `${message}\nHint: ${hint}` : message
}

/**
 * A syntax error, said with the checker's hints where it has them (a Python-looking program, the line of an
 * unclosed brace) instead of the compiler's bare message.
 */
export function explainCompileError(code: string, error: RunError, checked: TypeCheckOutcome | undefined): RunError {
  const python = pythonLine(code)
  if (python) return { ...error, message: pythonMessage(python), line: python.line, column: 1 }
  const first = checked?.syntax?.[0]
  if (first === undefined) return error
  return { kind: 'compile', message: formatTypeDiagnostics(checked?.syntax ?? []), line: first.line, column: first.column }
}

export function describeFailure(
  outcome: SandboxOutcome & { ok: false },
  program: CompiledProgram,
  limits: Limits,
  pendingNames: string[],
): RunError {
  const { error } = outcome
  // `session_lost` never reaches here past a session's retry; should a backend answer it unasked, it is infrastructure.
  const kind = error.kind === 'session_lost' ? 'sandbox_unavailable' : error.kind
  const base: RunError = { kind, message: error.message, ...(error.code ? { code: error.code } : {}) }
  if (error.kind === 'runtime') {
    const at = locateInSource(program, error.stack)
    if (at) Object.assign(base, { line: at.line, column: at.column })
  }
  if (error.kind === 'timeout') {
    // Say which budget ran out and what raises it, so the next attempt can fix it in one step.
    base.message =
      error.budget === 'deadline'
        ? `the run passed its ${limits.deadlineMs} ms deadline (the whole run, tool calls and approvals included) and was stopped; raise deadlineMs (--deadline)`
        : `the program used its ${limits.timeoutMs} ms of program time (running JS or waiting on itself; waits on tool calls are not counted) and was stopped; raise timeoutMs (--timeout)`
    // The budget's own flag, said once (a merge had also appended --timeout's hint, to the deadline's too).
    if (pendingNames.length) base.message += `; still waiting on: ${summarize(pendingNames)}`
  }
  if (error.kind === 'memory' && !/\d+ ?MB/.test(base.message)) base.message += ` (limit: ${limits.memoryMb} MB)`
  if (error.kind === 'memory') base.message += `; ${raiseHint('memoryMb')}`
  return base
}

function summarize(names: string[]): string {
  const counts = new Map<string, number>()
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1)
  return [...counts].map(([n, c]) => (c > 1 ? `${n} (×${c})` : n)).join(', ')
}

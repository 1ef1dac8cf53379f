/**
 * A failed run's "Completed before the error": the calls that succeeded before it stopped, so a model that
 * fixes the line and runs again does not repeat what already happened (a refund issued twice). Calls of
 * tools that declare side effects are marked and listed first when the list is capped.
 */
import type { CallRecord, JsonValue } from '../vocabulary/types.js'

/** How many completed calls are listed, and how many characters of each one's arguments and of its result. */
export const MAX_COMPLETED_LISTED = 20
export const MAX_COMPLETED_CHARS = 120

const MARK = '[side effect]'

/** `discarded`: the run's workspace changes were thrown away (a failed atomic run, a dry run). */
export function renderCompleted(calls: readonly CallRecord[], discarded = false): string | undefined {
  const done = calls.filter((c) => c.ok)
  if (done.length === 0) return undefined
  const marked = done.filter((c) => c.sideEffects)
  // Side effects first when not all fit: they are what must not happen twice; a read may be repeated.
  const kept = new Set([...marked, ...done.filter((c) => !c.sideEffects)].slice(0, MAX_COMPLETED_LISTED))
  const lines = done.filter((c) => kept.has(c)).map(renderCall)
  const left = done.filter((c) => !kept.has(c))
  if (left.length)
    lines.push(
      `…and ${left.length} more (${tally(left)}${left.some((c) => c.sideEffects) ? `; ${left.filter((c) => c.sideEffects).length} of them with side effects` : ', all reads'}); the list is capped at ${MAX_COMPLETED_LISTED} calls and ${MAX_COMPLETED_CHARS} characters per argument list and result — RunResult.calls (--json) has them all`,
    )
  const them = marked.length === 1 ? 'the call' : `the ${marked.length} calls`
  const warn = !marked.length
    ? '; nothing was marked as having side effects'
    : discarded
      ? ` — ${them} marked ${MARK} took effect unless ${marked.length === 1 ? 'it' : 'they'} only wrote to the workspace, whose changes were discarded (below): make the workspace writes again, do not repeat the others`
      : ` — do not repeat ${them} marked ${MARK}: ${marked.length === 1 ? 'it' : 'they'} already took effect; continue from where the program stopped`
  return `Completed before the error (${done.length} of ${calls.length} calls succeeded${warn}):\n${lines.join('\n')}`
}

function renderCall(c: CallRecord): string {
  return `- ${c.sideEffects ? `${MARK} ` : ''}${c.name}(${short(c.args)}) → ${c.result === undefined ? 'ok' : short(c.result)}`
}

function short(value: JsonValue): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > MAX_COMPLETED_CHARS ? `${text.slice(0, MAX_COMPLETED_CHARS - 1)}…` : text
}

function tally(calls: readonly CallRecord[]): string {
  const n = new Map<string, number>()
  for (const c of calls) n.set(c.name, (n.get(c.name) ?? 0) + 1)
  return [...n].map(([name, k]) => `${name} ×${k}`).join(', ')
}

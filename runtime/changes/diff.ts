/**
 * Unified diffs the way git prints them (`--- a/path`, `+++ b/path`, `/dev/null` for a created or deleted
 * file, three lines of context), from the jsdiff library's hunks. Binary content is one line, as in git.
 *
 * jsdiff's Myers diff costs (lines × edits): a file rewritten whole could hold the host's event loop for
 * as long as a run may take. It is cut off past MAX_EDIT_LINES edits or DIFF_SLICE_MS, whichever comes first; then the file
 * is shown as one hunk — the common head and tail kept as context, everything between removed and added —
 * found in linear time. Correct as a patch, only not minimal, and only for files that changed that much.
 */
import { diffModule } from '../../sdk/lazy-module.js'
import { quotePath } from '../../vocabulary/visible-text.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Text of a file's bytes, or undefined when they are binary (NUL bytes or invalid UTF-8). */
export function textOf(bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined) return ''
  if (bytes.includes(0)) return undefined
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

function range(start: number, lines: number): string {
  // git: "-3" for one line; "-0,0" for none, where the start is the line before (jsdiff gives the one after).
  return lines === 1 ? `${start}` : lines === 0 ? `${Math.max(0, start - 1)},0` : `${start},${lines}`
}

/** Edits past which Myers gives way to the linear hunk: a bound on the event loop's time per rewritten file. */
export const MAX_EDIT_LINES = 1000
/** The longest one file's Myers diff may hold the event loop. */
export const DIFF_SLICE_MS = 100
const CONTEXT = 3
const NO_EOL = '\\ No newline at end of file'

/** `before`/`after` undefined mean the file did not exist on that side. */
export function unifiedDiff(path: string, before: Buffer | undefined, after: Buffer | undefined): string {
  // Quoted as git quotes them (core.quotePath): a path holding a newline cannot forge a header.
  const from = before === undefined ? '/dev/null' : quotePath(`a/${path}`)
  const to = after === undefined ? '/dev/null' : quotePath(`b/${path}`)
  const a = textOf(before)
  const b = textOf(after)
  if (a === undefined || b === undefined) return `Binary files ${from} and ${to} differ\n`
  const options = { context: CONTEXT, maxEditLength: MAX_EDIT_LINES, timeout: DIFF_SLICE_MS }
  const patch = diffModule().structuredPatch(from, to, a, b, undefined, undefined, options)
  const out = [`--- ${from}`, `+++ ${to}`]
  if (!patch) out.push(...linearHunk(a, b))
  else
    for (const h of patch.hunks) {
      out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines)
    }
  return out.join('\n') + '\n'
}

/** Lines with their ends (a last line without one stays without), so that "x" and "x\n" differ. */
function linesOf(text: string): string[] {
  const lines = text.split(/(?<=\n)/)
  return lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines
}

/** One line of a hunk: its mark, its text, and git's marker after a last line without an end. */
function hunkLine(mark: string, line: string): string[] {
  return line.endsWith('\n') ? [mark + line.slice(0, -1)] : [mark + line, NO_EOL]
}

/** The whole change as one hunk: common head and tail as context, the rest removed and added. Linear. */
function linearHunk(a: string, b: string): string[] {
  const x = linesOf(a)
  const y = linesOf(b)
  let head = 0
  while (head < x.length && head < y.length && x[head] === y[head]) head++
  let tail = 0
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++
  if (head === x.length && head === y.length) return []
  const start = Math.max(0, head - CONTEXT)
  const endX = Math.min(x.length, x.length - tail + CONTEXT)
  const endY = Math.min(y.length, y.length - tail + CONTEXT)
  const lines: string[] = [`@@ -${range(start + 1, endX - start)} +${range(start + 1, endY - start)} @@`]
  for (let i = start; i < head; i++) lines.push(...hunkLine(' ', x[i]!))
  for (let i = head; i < x.length - tail; i++) lines.push(...hunkLine('-', x[i]!))
  for (let i = head; i < y.length - tail; i++) lines.push(...hunkLine('+', y[i]!))
  for (let i = x.length - tail; i < endX; i++) lines.push(...hunkLine(' ', x[i]!))
  return lines
}

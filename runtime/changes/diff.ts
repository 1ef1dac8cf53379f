/**
 * Unified diffs the way git prints them (`--- a/path`, `+++ b/path`, `/dev/null` for a created or deleted
 * file, three lines of context), from the jsdiff library's hunks. Binary content is one line, as in git.
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

/** `before`/`after` undefined mean the file did not exist on that side. */
export function unifiedDiff(path: string, before: Buffer | undefined, after: Buffer | undefined): string {
  // Quoted as git quotes them (core.quotePath): a path holding a newline cannot forge a header.
  const from = before === undefined ? '/dev/null' : quotePath(`a/${path}`)
  const to = after === undefined ? '/dev/null' : quotePath(`b/${path}`)
  const a = textOf(before)
  const b = textOf(after)
  if (a === undefined || b === undefined) return `Binary files ${from} and ${to} differ\n`
  const patch = diffModule().structuredPatch(from, to, a, b, undefined, undefined, { context: 3 })
  const out = [`--- ${from}`, `+++ ${to}`]
  for (const h of patch.hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines)
  }
  return out.join('\n') + '\n'
}

/**
 * An `ast_grep` rewrite template made text, the way the ast-grep CLI does it: `$NAME` is the captured
 * node's text, `$$$NAME` the source from the first to the last node of a multiple capture, a name nothing
 * captured is empty; lines of a multi-line capture keep their indentation relative to the template, and
 * the template's later lines take the matched line's indentation. Then the edits are spliced in, the
 * outer of two overlapping matches winning (the inner one is inside the text it replaces).
 */
import type { SgNode } from '@ast-grep/napi'

const METAVAR = /\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g

/** Leading spaces and tabs of the line holding `index`. */
function lineIndent(source: string, index: number): string {
  const start = source.lastIndexOf('\n', index - 1) + 1
  return /^[ \t]*/.exec(source.slice(start, index))?.[0] ?? ''
}

function reindent(text: string, from: number, to: string): string {
  const lines = text.split('\n')
  return lines
    .map((line, i) => {
      if (i === 0) return line
      const lead = /^[ \t]*/.exec(line)?.[0].length ?? 0
      return to + line.slice(Math.min(lead, from))
    })
    .join('\n')
}

/** The captured text of `name` in `match`, and where in the source it starts ('' and -1 when none). */
function captured(match: SgNode, name: string, multiple: boolean): { text: string; at: number } {
  if (!multiple) {
    const one = match.getMatch(name)
    return one ? { text: one.text(), at: one.range().start.index } : { text: '', at: -1 }
  }
  const nodes = match.getMultipleMatches(name)
  const first = nodes[0]
  const last = nodes.at(-1)
  if (!first || !last) return { text: '', at: -1 }
  const source = match.getRoot().root().text()
  return { text: source.slice(first.range().start.index, last.range().end.index), at: first.range().start.index }
}

/** The replacement text for one match. */
export function expandTemplate(template: string, match: SgNode, source: string): string {
  const out = template.split('\n').map((line) => {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? ''
    return line.replace(METAVAR, (_all, multi: string | undefined, single: string | undefined) => {
      const { text, at } = captured(match, (multi ?? single) as string, multi !== undefined)
      return text.includes('\n') ? reindent(text, lineIndent(source, at).length, indent) : text
    })
  })
  return reindent(out.join('\n'), 0, lineIndent(source, match.range().start.index))
}

export interface Edit {
  start: number
  end: number
  text: string
}

/** `source` with the edits spliced in; an edit overlapping one before it is dropped (its text is replaced anyway). */
export function applyEdits(source: string, edits: readonly Edit[]): { text: string; applied: number } {
  const sorted = [...edits].sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ''
  let at = 0
  let applied = 0
  for (const e of sorted) {
    if (e.start < at) continue
    out += source.slice(at, e.start) + e.text
    at = e.end
    applied++
  }
  return { text: out + source.slice(at), applied }
}

/** The metavariable names a pattern, rule or template mentions (`_`-names capture nothing). */
export function metavarNames(...texts: string[]): string[] {
  const names = new Set<string>()
  for (const t of texts) for (const m of t.matchAll(METAVAR)) names.add((m[1] ?? m[2]) as string)
  return [...names].filter((n) => !n.startsWith('_')).sort()
}

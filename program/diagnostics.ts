/**
 * Type diagnostics as the model reads them: `line:col message`, the offending line with a caret, the first
 * few only. Short, because the model pays for it and the first error is usually the one that matters.
 */
import type { TypeDiagnostic } from './typecheck.js'

/** TypeScript's codes stay below this; codeact's own checks are numbered from it (rule-table.ts). */
const CODEACT_CODE_FLOOR = 90000

/** Longest message and source line shown; TypeScript's elaborations of big object types can run long. */
const MAX_MESSAGE = 600
const MAX_LINE = 160

export function formatTypeDiagnostics(diags: readonly TypeDiagnostic[], max = 5): string {
  const shown = diags.slice(0, Math.max(0, max)).map(formatOne)
  const rest = diags.length - shown.length
  if (rest > 0) shown.push(`…and ${rest} more`)
  return shown.join('\n')
}

function formatOne(d: TypeDiagnostic): string {
  const message = cut(d.message, MAX_MESSAGE).replace(/\n/g, '\n  ')
  // codeact's own checks (program/call-constraints.ts) are no TypeScript code: they name their rule.
  const head = `${d.line}:${d.column} ${message} (${d.code >= CODEACT_CODE_FLOOR ? `codeact ${d.rule ?? 'check'}` : `TS${d.code}`})`
  const line = d.lineText.trimEnd()
  if (line.trim() === '') return head
  // Keep the caret under the column even when the line is cut or indented.
  const start = Math.max(0, Math.min(d.column - 1 - 40, line.length - MAX_LINE))
  const shownLine = cut(line.slice(start), MAX_LINE)
  const caret = Math.max(0, d.column - 1 - start)
  const prefix = start > 0 ? '…' : ''
  return `${head}\n  ${prefix}${shownLine}\n  ${' '.repeat(caret + prefix.length)}^`
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

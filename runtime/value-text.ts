/**
 * A run's return value as the model reads it: a string as it is, anything else as JSON laid out at the
 * fewest tokens that stay readable.
 */
import type { JsonValue } from '../vocabulary/types.js'

export function renderValue(value: JsonValue): string {
  return typeof value === 'string' ? value : compactJson(value)
}

/** Past this size a value is printed flat: laying it out would cost more than it saves. */
const MAX_LAID_OUT = 256 * 1024
const LINE_WIDTH = 120

/**
 * JSON laid out for a reader at the fewest tokens: an array or object that fits on one line stays on
 * one line (`[1,2,3]`, `{"a":1}`); a bigger one puts each entry on its own line, indented by two, so a
 * list of records is one line per record — except a list of plain values (ids, numbers), which fills
 * lines of up to 120 characters: one line each would cost a line break and an indent per value.
 */
export function compactJson(value: JsonValue, indent = ''): string {
  const flat = JSON.stringify(value)
  if (value === null || typeof value !== 'object' || indent.length + flat.length <= LINE_WIDTH || flat.length > MAX_LAID_OUT) return flat
  const inner = indent + '  '
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    if (value.every(isPlain)) return `[\n${filled(value, inner).join('\n')}\n${indent}]`
    return `[\n${value.map((v) => inner + compactJson(v, inner)).join(',\n')}\n${indent}]`
  }
  const entries = Object.entries(value)
  if (entries.length === 0) return '{}'
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v as JsonValue, inner)}`).join(',\n')}\n${indent}}`
}

function isPlain(v: JsonValue): boolean {
  return v === null || typeof v !== 'object'
}

/** Plain values joined as compact JSON does (`1,2,3`), broken into lines that fit the width. */
function filled(values: readonly JsonValue[], inner: string): string[] {
  const lines: string[] = []
  let line = ''
  for (const v of values) {
    const text = JSON.stringify(v)
    if (line && inner.length + line.length + 1 + text.length > LINE_WIDTH) {
      lines.push(`${inner}${line},`)
      line = text
    } else line = line ? `${line},${text}` : text
  }
  lines.push(inner + line)
  return lines
}

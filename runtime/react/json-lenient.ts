/**
 * JSON as models write it in an `Action Input:`: standard JSON, or JSON with trailing commas (`{"a": 1,}`),
 * which LLMs produce often enough that refusing it would only cost a turn. Nothing else is repaired.
 */
import type { JsonValue } from '../../vocabulary/types.js'

export type LenientJson = { ok: true; value: JsonValue } | { ok: false; why: string }

export function parseLenientJson(text: string): LenientJson {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue }
  } catch (e) {
    const repaired = withoutTrailingCommas(text)
    if (repaired !== text) {
      try {
        return { ok: true, value: JSON.parse(repaired) as JsonValue }
      } catch {}
    }
    return { ok: false, why: (e as Error).message }
  }
}

/** Drops a comma that only whitespace separates from a closing `}` or `]`, outside strings. */
function withoutTrailingCommas(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      out += ch
      if (ch === '\\') out += text[++i] ?? ''
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    if (ch === ',' && closesNext(text, i + 1)) continue
    out += ch
  }
  return out
}

/** Whether only whitespace stands between `from` and a closing bracket. */
function closesNext(text: string, from: number): boolean {
  let i = from
  while (i < text.length && /\s/.test(text[i]!)) i++
  return text[i] === '}' || text[i] === ']'
}

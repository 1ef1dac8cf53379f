/**
 * Type text as values: a rendered type knows its operator precedence, so unions, intersections and arrays
 * get parentheses exactly where TypeScript needs them. `unknown` absorbs unions and vanishes from
 * intersections, which is what keeps a generated type from ever being narrower than its schema.
 */

/** Operator precedence of a rendered type: what needs parentheses inside `T[]` or `A & B`. */
export const Prec = { Union: 0, Intersection: 1, Atom: 2 } as const
export type Prec = (typeof Prec)[keyof typeof Prec]
export interface Rendered {
  text: string
  prec: Prec
}

export const UNKNOWN: Rendered = { text: 'unknown', prec: Prec.Atom }

/** `enum`/`const` values as a union of literal types; values the stated `type` excludes are dropped. */
export function literalUnion(values: readonly unknown[], types: string[] | undefined): Rendered {
  const kept = types === undefined ? values : values.filter((v) => types.some((t) => hasType(v, t)))
  const literals: Rendered[] = []
  for (const v of kept) {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') literals.push({ text: JSON.stringify(v), prec: Prec.Atom })
    else if (typeof v === 'number' && Number.isFinite(v)) literals.push({ text: String(v), prec: Prec.Atom })
    else return UNKNOWN // an object or array literal: say nothing rather than something wrong
  }
  return literals.length === 0 ? { text: 'never', prec: Prec.Atom } : union(literals)
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'integer':
      return Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return typeof value === type
  }
}

export function union(types: readonly Rendered[]): Rendered {
  if (types.some((t) => t.text === 'unknown')) return UNKNOWN
  const seen = new Map<string, Rendered>()
  for (const t of types) if (t.text !== 'never' && !seen.has(t.text)) seen.set(t.text, t)
  const kept = [...seen.values()]
  if (kept.length === 0) return { text: 'never', prec: Prec.Atom }
  if (kept.length === 1) return kept[0] ?? UNKNOWN
  return { text: kept.map((t) => wrap(t, Prec.Intersection)).join(' | '), prec: Prec.Union }
}

export function intersection(types: readonly Rendered[]): Rendered {
  const kept = types.filter((t) => t.text !== 'unknown')
  if (kept.length === 0) return UNKNOWN
  if (kept.length === 1) return kept[0] ?? UNKNOWN
  return { text: kept.map((t) => wrap(t, Prec.Atom)).join(' & '), prec: Prec.Intersection }
}

export function wrap(t: Rendered, min: Prec): string {
  return t.prec >= min ? t.text : `(${t.text})`
}

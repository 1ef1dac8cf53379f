/**
 * The constraints the SDK text shows for a field (`@integer @minimum 1 @maximum 50`, `@pattern …`, the tags
 * sdk/jsdoc.ts writes), read back from a doc line, and the check of a literal value against them. Only what
 * certainly fails is reported: a string's length is counted the way that makes the failure true for both
 * validators (ajv counts code points, zod UTF-16 units). Pure text: no TypeScript here.
 */
export interface Constraints {
  integer?: boolean
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
  exclusiveMaximum?: number
  multipleOf?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  pattern?: string
  format?: string
}

export type LiteralValue =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'array'; length: number; items?: readonly (string | number)[] }

/** The numeric constraint keywords, in the order sdk/jsdoc.ts writes their tags. */
export const NUMERIC = [
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'multipleOf',
] as const
/** Every tag jsdoc.ts writes, so a `@pattern` value ends where the next tag starts. */
const TAG =
  /(?:^|\s)@(integer|minimum|exclusiveMinimum|maximum|exclusiveMaximum|minLength|maxLength|minItems|maxItems|multipleOf|pattern|uniqueItems|format|default|example|deprecated)\b/g

/** The constraints in one field's doc line; undefined when it shows none. */
export function parseConstraints(doc: string): Constraints | undefined {
  const text = doc.replace(/\*\\\//g, '*/')
  const marks = [...text.matchAll(TAG)]
  const out: Constraints = {}
  marks.forEach((m, i) => {
    const tag = m[1] as string
    const end = marks[i + 1]?.index ?? text.length
    const value = text.slice((m.index ?? 0) + m[0].length, end).trim()
    if (tag === 'integer') out.integer = true
    else if (tag === 'uniqueItems') out.uniqueItems = true
    else if (tag === 'pattern' && value !== '') out.pattern = value
    else if (tag === 'format' && value !== '') out.format = value
    else if ((NUMERIC as readonly string[]).includes(tag) && value !== '' && Number.isFinite(Number(value)))
      out[tag as (typeof NUMERIC)[number]] = Number(value)
  })
  return Object.keys(out).length > 0 ? out : undefined
}

/** What a literal breaks: "`limit` must be ≤ 50 (@maximum)", or undefined when it may be valid. */
export function violation(field: string, value: LiteralValue, c: Constraints): string | undefined {
  const broken =
    value.kind === 'number' ? numberRule(value.value, c) : value.kind === 'string' ? stringRule(value.value, c) : arrayRule(value, c)
  return broken === undefined ? undefined : `\`${field}\` must ${broken}`
}

function numberRule(n: number, c: Constraints): string | undefined {
  if (c.integer && !Number.isInteger(n)) return `be a whole number (@integer); it is ${n}`
  if (c.minimum !== undefined && n < c.minimum) return `be ≥ ${c.minimum} (@minimum); it is ${n}`
  if (c.exclusiveMinimum !== undefined && n <= c.exclusiveMinimum) return `be > ${c.exclusiveMinimum} (@exclusiveMinimum); it is ${n}`
  if (c.maximum !== undefined && n > c.maximum) return `be ≤ ${c.maximum} (@maximum); it is ${n}`
  if (c.exclusiveMaximum !== undefined && n >= c.exclusiveMaximum) return `be < ${c.exclusiveMaximum} (@exclusiveMaximum); it is ${n}`
  if (c.multipleOf !== undefined && c.multipleOf > 0) {
    const q = n / c.multipleOf
    if (Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, Math.abs(q))) return `be a multiple of ${c.multipleOf} (@multipleOf); it is ${n}`
  }
  return undefined
}

function stringRule(s: string, c: Constraints): string | undefined {
  const shown = JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}...` : s)
  // Too long in code points is too long in UTF-16 units too, and too short in units is too short in points.
  if (c.maxLength !== undefined && [...s].length > c.maxLength)
    return `be at most ${c.maxLength} characters long (@maxLength); ${shown} has ${[...s].length}`
  if (c.minLength !== undefined && s.length < c.minLength)
    return `be at least ${c.minLength} characters long (@minLength); ${shown} has ${s.length}`
  if (c.pattern !== undefined) {
    const re = compile(c.pattern)
    if (re !== undefined && !re.test(s)) return `match ${c.pattern} (@pattern); ${shown} does not`
  }
  if (c.format !== undefined && c.pattern === undefined) {
    const test = FORMATS[c.format]
    if (test !== undefined && !test(s)) return `be a ${c.format} (@format); ${shown} is not`
  }
  return undefined
}

function arrayRule(a: { length: number; items?: readonly (string | number)[] }, c: Constraints): string | undefined {
  if (c.minItems !== undefined && a.length < c.minItems) return `have at least ${items(c.minItems)} (@minItems); it has ${a.length}`
  if (c.maxItems !== undefined && a.length > c.maxItems) return `have at most ${items(c.maxItems)} (@maxItems); it has ${a.length}`
  if (c.uniqueItems && a.items !== undefined && new Set(a.items).size < a.items.length) return 'have no repeated items (@uniqueItems)'
  return undefined
}

function items(n: number): string {
  return n === 1 ? '1 item' : `${n} items`
}

/** As ajv compiles a pattern (with `u`), else as written; a pattern neither can compile is not checked. */
function compile(pattern: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags)
    } catch {
      // the next way
    }
  }
  return undefined
}

/** Formats whose violation is unmistakable; lenient on purpose (a value these accept may still be wrong). */
const FORMATS: Record<string, (s: string) => boolean> = {
  date: (s) => /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(s),
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(s),
  time: (s) => /^\d{2}:\d{2}/.test(s),
  email: (s) => /^[^\s@]+@[^\s@]+$/.test(s),
  uri: (s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(s),
  url: (s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => /^(\d{1,3})(\.\d{1,3}){3}$/.test(s) && s.split('.').every((p) => Number(p) <= 255),
}

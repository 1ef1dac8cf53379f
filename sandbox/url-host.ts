/**
 * The sandbox's URL parsing, done by the host's own WHATWG parser (Node's `URL`: ada, linear in its input,
 * IDNA, IPv4 number forms and IPv6 complete). Two pure functions, strings in and strings out, never
 * throwing: the isolate's child hands them to each realm as synchronous callbacks (isolate/realm.ts), the
 * container's runner to its program realm (docker/runner/realm.ts); guest/url.ts calls them for every
 * parse and every setter. Deno's URL does the same (a parse op and a reparse-with-setter op over ada).
 *
 *   urlRecord(input, base?)      → the JSON text of a record, or of a failure
 *   urlSet(href, field, value)   → the record of `href` after `url[field] = value`, or a failure
 *
 * A record is `{ href, origin, protocol, username, password, host, hostname, port, pathname, search, hash }`;
 * a failure is a JSON string: "invalid" (Node's URL threw) or "too-long" (an input or the href past
 * MAX_URL_CHARS: the guest refuses long inputs before they cross, this is the host's own check).
 */
import { MAX_URL_CHARS } from '../guest/limits.js'

export const URL_FIELDS = [
  'href',
  'origin',
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const
const SETTABLE = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'])

// Node's URL and its accessors as this module loaded: in a container a program can reach the runner's
// `node:url` and patch its prototype; its own URLs must still be parsed by the parser, not by the patch.
const URLCtor = URL
const ReflectApply = Reflect.apply
const JSONstringify = JSON.stringify
const accessors = Object.getOwnPropertyDescriptors(URL.prototype)
const getters = new Map(URL_FIELDS.map((f) => [f as string, accessors[f]?.get]))
const setters = new Map([...SETTABLE].map((f) => [f, accessors[f]?.set]))
const INVALID = '"invalid"'
const TOO_LONG = '"too-long"'

function tooLong(s: string): boolean {
  return s.length > MAX_URL_CHARS
}

function recordOf(u: URL): string {
  const r: Record<string, string> = {}
  for (const f of URL_FIELDS) r[f] = ReflectApply(getters.get(f)!, u, []) as string
  return tooLong(r.href!) ? TOO_LONG : JSONstringify(r)
}

export function urlRecord(input: unknown, base: unknown): string {
  if (typeof input !== 'string' || (base !== undefined && typeof base !== 'string')) return INVALID
  if (tooLong(input) || (base !== undefined && tooLong(base))) return TOO_LONG
  try {
    return recordOf(base === undefined ? new URLCtor(input) : new URLCtor(input, base))
  } catch {
    return INVALID
  }
}

export function urlSet(href: unknown, field: unknown, value: unknown): string {
  if (typeof href !== 'string' || typeof value !== 'string' || typeof field !== 'string' || !SETTABLE.has(field)) return INVALID
  if (tooLong(href) || tooLong(value)) return TOO_LONG
  try {
    const u = new URLCtor(href)
    ReflectApply(setters.get(field)!, u, [value])
    return recordOf(u)
  } catch {
    return INVALID
  }
}

/**
 * `URLSearchParams`: the application/x-www-form-urlencoded list a program builds or reads from a URL's
 * query. The list lives here (a URL's `searchParams` is live: each change sets its URL's query, each change
 * of the URL's query reads the list anew); the URL itself is parsed by the host (url.ts). Built only from
 * intrinsics captured before the program ran, so a program that poisons Array.prototype or replaces Symbol
 * still gets the same answers. Names and values are USV strings, as the standard's IDL makes them: an
 * unpaired surrogate becomes U+FFFD on the way in.
 */
import {
  type Any,
  charCodeOf,
  list,
  MathMin,
  NumberParseInt,
  ObjectDefineProperty,
  ObjectKeys,
  put,
  ReflectApply,
  StringFromCharCode,
  stringIndexOf,
  stringSlice,
  SymbolIterator,
  SymbolToStringTag,
  TypeErrorCtor,
} from './intrinsics.js'
import { utf8Decode } from './text.js'

const HEX = '0123456789ABCDEF'

/** A value as the standard's USVString: ToString, then each unpaired surrogate replaced by U+FFFD. */
export function usv(v: unknown): string {
  const s = `${v}`
  let out = ''
  let from = 0
  for (let i = 0; i < s.length; i++) {
    const c = charCodeOf(s, i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff && i + 1 < s.length && (charCodeOf(s, i + 1) & 0xfc00) === 0xdc00) {
      i++
      continue
    }
    out += ReflectApply(stringSlice, s, [from, i]) + '\ufffd'
    from = i + 1
  }
  return from === 0 ? s : out + ReflectApply(stringSlice, s, [from])
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
}

/** Percent-decode, '+' as a space, then UTF-8 (a bad sequence becomes U+FFFD). */
function formDecode(s: string): string {
  const bytes = list()
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = charCodeOf(s, i)
    if (c === 0x25 && i + 2 < s.length && isHex(charCodeOf(s, i + 1)) && isHex(charCodeOf(s, i + 2))) {
      put(bytes, NumberParseInt(ReflectApply(stringSlice, s, [i + 1, i + 3]), 16))
      i += 2
      continue
    }
    if (bytes.length) {
      out += utf8Decode(bytes, false)
      bytes.length = 0
    }
    out += c === 0x2b ? ' ' : s[i]
  }
  return bytes.length ? out + utf8Decode(bytes, false) : out
}

function pct(b: number): string {
  return '%' + HEX[b >> 4] + HEX[b & 15]
}

/** The form-urlencoded serialisation of a USV string: * - . _ and alphanumerics kept, space as '+'. */
function formEncode(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    let c = charCodeOf(s, i)
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f)
      out += StringFromCharCode(c)
    else if (c === 0x20) out += '+'
    else if (c < 0x80) out += pct(c)
    else if (c < 0x800) out += pct(0xc0 | (c >> 6)) + pct(0x80 | (c & 63))
    else if (c >= 0xd800 && c <= 0xdbff) {
      // usv() left only pairs.
      c = 0x10000 + ((c - 0xd800) << 10) + (charCodeOf(s, ++i) - 0xdc00)
      out += pct(0xf0 | (c >> 18)) + pct(0x80 | ((c >> 12) & 63)) + pct(0x80 | ((c >> 6) & 63)) + pct(0x80 | (c & 63))
    } else out += pct(0xe0 | (c >> 12)) + pct(0x80 | ((c >> 6) & 63)) + pct(0x80 | (c & 63))
  }
  return out
}

type Pair = [string, string]

/** The pairs of a query string (a leading '?' dropped). */
function parsePairs(s: string): Pair[] {
  const out = list()
  if (s[0] === '?') s = ReflectApply(stringSlice, s, [1])
  let start = 0
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && s[i] !== '&') continue
    const part = ReflectApply(stringSlice, s, [start, i])
    start = i + 1
    if (part === '') continue
    const eq = ReflectApply(stringIndexOf, part, ['='])
    const name = eq >= 0 ? ReflectApply(stringSlice, part, [0, eq]) : part
    put(out, [formDecode(name), eq >= 0 ? formDecode(ReflectApply(stringSlice, part, [eq + 1])) : ''])
  }
  return out
}

/** A stable merge sort by name in code units, as the standard asks (linearithmic for a program's big lists). */
function sortPairs(a: Pair[]): Pair[] {
  let from = a
  let to = list()
  for (let width = 1; width < a.length; width *= 2) {
    for (let lo = 0; lo < a.length; lo += 2 * width) {
      const mid = MathMin(lo + width, a.length)
      const hi = MathMin(lo + 2 * width, a.length)
      let i = lo
      let j = mid
      for (let k = lo; k < hi; k++) to[k] = i < mid && (j >= hi || from[i]![0] <= from[j]![0]) ? from[i++] : from[j++]
    }
    const t = from
    from = to
    to = t === a ? list() : t
  }
  return from
}

function pairsFromObject(init: Any): Pair[] {
  const out = list()
  if (typeof init[SymbolIterator] === 'function') {
    for (const pair of init) {
      const p = list()
      for (const x of pair) put(p, x)
      if (p.length !== 2) throw new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple')
      put(out, [usv(p[0]), usv(p[1])])
    }
    return out
  }
  const keys = ObjectKeys(init)
  for (let i = 0; i < keys.length; i++) put(out, [usv(keys[i]), usv(init[keys[i]!])])
  return out
}

/** The URL a searchParams belongs to: told of each change (it reads the list back when it next needs it). */
export type ParamsOwner = { changed(): void }
export type SearchParamsKit = {
  URLSearchParams: new (init?: unknown) => object
  /** Link `params` to its URL and read the URL's query into it. */
  attach(params: object, owner: ParamsOwner, search: string): void
  /** Read the URL's new query into `params` (its href or search was set). */
  reread(params: object, search: string): void
  /** The URL's search as Node's URL makes it from `params`: '' for none, else '?' and their serialisation. */
  search(params: object): string
}
let built: SearchParamsKit | undefined

/** The class and its URL hooks, built on first use (globals.ts), once per realm. */
export function searchParamsKit(): SearchParamsKit {
  if (built === undefined) built = buildSearchParams()
  return built
}

function buildSearchParams(): SearchParamsKit {
  let attach: SearchParamsKit['attach'] = () => {}
  let reread: SearchParamsKit['reread'] = () => {}
  let search: SearchParamsKit['search'] = () => ''
  class URLSearchParams {
    #list: Pair[] = list()
    #owner: ParamsOwner | null = null
    constructor(init?: Any) {
      if (init === undefined || init === null) return
      this.#list = typeof init === 'object' || typeof init === 'function' ? pairsFromObject(init) : parsePairs(usv(init))
    }
    // Module-private hooks for URL (a static block, so nothing extra is visible on the class).
    static {
      attach = (params: Any, owner, search) => {
        params.#owner = owner
        params.#list = parsePairs(search)
      }
      reread = (params: Any, query) => {
        params.#list = parsePairs(query)
      }
      search = (params: Any) => (params.#list.length === 0 ? '' : '?' + params.#text())
    }
    #update(): void {
      if (this.#owner) this.#owner.changed()
    }
    get size(): number {
      return this.#list.length
    }
    append(name: unknown, value: unknown): void {
      put(this.#list, [usv(name), usv(value)])
      this.#update()
    }
    delete(name: unknown, value?: unknown): void {
      const n = usv(name)
      const v = value === undefined ? undefined : usv(value)
      const keep = list()
      for (let i = 0; i < this.#list.length; i++) {
        const p = this.#list[i]!
        if (p[0] !== n || (v !== undefined && p[1] !== v)) put(keep, p)
      }
      this.#list = keep
      this.#update()
    }
    get(name: unknown): string | null {
      const n = usv(name)
      for (let i = 0; i < this.#list.length; i++) if (this.#list[i]![0] === n) return this.#list[i]![1]
      return null
    }
    getAll(name: unknown): string[] {
      const n = usv(name)
      const out: string[] = []
      for (let i = 0; i < this.#list.length; i++) if (this.#list[i]![0] === n) put(out, this.#list[i]![1])
      return out
    }
    has(name: unknown, value?: unknown): boolean {
      const n = usv(name)
      const v = value === undefined ? undefined : usv(value)
      for (let i = 0; i < this.#list.length; i++) if (this.#list[i]![0] === n && (v === undefined || this.#list[i]![1] === v)) return true
      return false
    }
    set(name: unknown, value: unknown): void {
      const n = usv(name)
      const v = usv(value)
      const out = list()
      let done = false
      for (let i = 0; i < this.#list.length; i++) {
        const p = this.#list[i]!
        if (p[0] !== n) put(out, p)
        else if (!done) {
          put(out, [n, v])
          done = true
        }
      }
      if (!done) put(out, [n, v])
      this.#list = out
      this.#update()
    }
    sort(): void {
      this.#list = sortPairs(this.#list)
      this.#update()
    }
    forEach(fn: Any, thisArg?: unknown): void {
      if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be of type function')
      for (let i = 0; i < this.#list.length; i++) ReflectApply(fn, thisArg, [this.#list[i]![1], this.#list[i]![0], this])
    }
    *entries(): IterableIterator<[string, string]> {
      for (let i = 0; i < this.#list.length; i++) yield [this.#list[i]![0], this.#list[i]![1]]
    }
    *keys(): IterableIterator<string> {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i]![0]
    }
    *values(): IterableIterator<string> {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i]![1]
    }
    [SymbolIterator](): IterableIterator<[string, string]> {
      return this.entries()
    }
    #text(): string {
      let out = ''
      for (let i = 0; i < this.#list.length; i++)
        out += (i ? '&' : '') + formEncode(this.#list[i]![0]) + '=' + formEncode(this.#list[i]![1])
      return out
    }
    toString(): string {
      return this.#text()
    }
    get [SymbolToStringTag](): string {
      return 'URLSearchParams'
    }
  }
  ObjectDefineProperty(URLSearchParams, 'name', { __proto__: null, value: 'URLSearchParams' })
  return { URLSearchParams, attach, reread, search }
}

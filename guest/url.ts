/**
 * `URL`, the class a program sees, parsed by the host's own WHATWG parser (Node's URL: IDNA, IPv4 number
 * forms and IPv6 complete, linear in its input). Every parse and every setter is one synchronous call of a
 * pure host function the bridge handed over before the program ran (sandbox/url-host.ts): strings in, the
 * JSON text of the URL's record out. The functions stay in this module's closure; the program reaches
 * neither them nor anything of the host.
 *
 * The class holds the record, and its live `searchParams` (url-search-params.ts). It is built only from
 * intrinsics captured before the program ran, so a program that poisons prototypes, JSON or Symbol still
 * gets Node's answers. An input past MAX_URL_CHARS is refused here, before it crosses. (whatwg-url, tried
 * first, read prototype methods as the program left them and was quadratic on a long URL.)
 */
import {
  type Any,
  JSONparse,
  ObjectDefineProperty,
  ReflectApply,
  stringIndexOf,
  stringSlice,
  SymbolToStringTag,
  TypeErrorCtor,
} from './intrinsics.js'
import { MAX_URL_CHARS } from './limits.js'
import { searchParamsKit } from './url-search-params.js'

/** The host's two functions (sandbox/url-host.ts). */
export type UrlRecordFn = (input: string, base: string | undefined) => string
export type UrlSetFn = (href: string, field: string, value: string) => string
let hostRecord: UrlRecordFn | undefined
let hostSet: UrlSetFn | undefined

/** The bridge hands the host's functions over once per run, before the program (run.ts). */
export function useUrlHost(record: UrlRecordFn, set: UrlSetFn): void {
  hostRecord = record
  hostSet = set
}

type UrlRecord = {
  href: string
  origin: string
  protocol: string
  username: string
  password: string
  host: string
  hostname: string
  port: string
  pathname: string
  search: string
  hash: string
}

function urlError(message: string, input: string): Error {
  const e = new TypeErrorCtor(message)
  ObjectDefineProperty(e, 'code', { __proto__: null, value: 'ERR_INVALID_URL', writable: true, configurable: true })
  ObjectDefineProperty(e, 'input', { __proto__: null, value: input, writable: true, configurable: true, enumerable: true })
  return e
}

function tooLong(length: number): Error {
  const e = new TypeErrorCtor(
    `URL too long: ${length} characters; the sandbox's URL parser takes at most ${MAX_URL_CHARS} (MAX_URL_CHARS): keep big data out of URLs`,
  )
  ObjectDefineProperty(e, 'code', { __proto__: null, value: 'ERR_URL_TOO_LONG', writable: true, configurable: true })
  return e
}

function checkLength(s: string): void {
  if (s.length > MAX_URL_CHARS) throw tooLong(s.length)
}

/** The host's answer as a record, or the error it names. */
function answer(json: string, input: string): UrlRecord {
  const r = JSONparse(json)
  if (typeof r === 'object' && r !== null) return r
  if (r === 'too-long') throw tooLong(input.length)
  throw urlError('Invalid URL: ' + (input.length > 200 ? `${ReflectApply(stringSlice, input, [0, 200])}…` : input), input)
}

function unavailable(): Error {
  return new TypeErrorCtor('URL is not available before the run starts')
}

/** A url or base as the string Node's URL makes of it, within MAX_URL_CHARS. */
function text(v: unknown): string {
  const s = `${v}`
  checkLength(s)
  return s
}

/** `href` after `url[field] = value`, by the host. */
function setOnHost(href: string, field: string, value: string): UrlRecord {
  checkLength(value)
  if (hostSet === undefined) throw unavailable()
  return answer(hostSet(href, field, value), value)
}

/** Whether a serialised URL has a query, an empty one included ('#' and '?' appear nowhere else in an href). */
function hasQuery(href: string): boolean {
  const hash = ReflectApply(stringIndexOf, href, ['#'])
  const q = ReflectApply(stringIndexOf, href, ['?'])
  return q >= 0 && (hash < 0 || q < hash)
}

function parse(input: string, base: string | undefined): UrlRecord {
  if (hostRecord === undefined) throw unavailable()
  return answer(hostRecord(input, base), input)
}

type UrlClasses = { URL: unknown; URLSearchParams: unknown }
let built: UrlClasses | undefined

/** The two classes, built on first use (globals.ts), once per realm: a URL's searchParams is the global's class. */
export function urlClasses(): UrlClasses {
  if (built === undefined) built = buildUrlClass()
  return built
}

function buildUrlClass(): UrlClasses {
  const kit = searchParamsKit()
  class URL {
    #r: UrlRecord
    #params: Any
    /** searchParams changed since the query was last set from them. */
    #stale = false
    constructor(url: unknown, base?: unknown) {
      // biome-ignore lint/complexity/noArguments: a declared parameter keeps the constructor's length at 1, as the standard's
      if (arguments.length === 0) throw new TypeErrorCtor('The "url" argument must be specified')
      this.#r = parse(text(url), base === undefined ? undefined : text(base))
      this.#params = new kit.URLSearchParams()
      kit.attach(this.#params, { changed: () => this.#paramsChanged() }, this.#r.search)
    }
    // Both refuse an input past MAX_URL_CHARS as the constructor does: false or null would hide the limit.
    static canParse(url: unknown, base?: unknown): boolean {
      const u = text(url)
      const b = base === undefined ? undefined : text(base)
      try {
        parse(u, b)
        return true
      } catch {
        return false
      }
    }
    static parse(url: unknown, base?: unknown): URL | null {
      const u = text(url)
      const b = base === undefined ? undefined : text(base)
      try {
        return new URL(u, b)
      } catch {
        return null
      }
    }
    /**
     * A change of searchParams reaches the URL as Node's URL applies it: a URL with a query has it cleared
     * (an opaque path's trailing spaces go with it) and set anew at once; one without gets it when next read.
     */
    #paramsChanged(): void {
      this.#stale = true
      if (!hasQuery(this.#r.href)) return
      this.#r = setOnHost(this.#r.href, 'search', '')
      this.#fresh()
    }
    #fresh(): UrlRecord {
      if (this.#stale) {
        this.#stale = false
        this.#r = setOnHost(this.#r.href, 'search', kit.search(this.#params))
      }
      return this.#r
    }
    /** `field` set to `value` by the host; after href or search, the params read the new query if it changed. */
    #set(field: string, value: string): void {
      const rereads = field === 'href' || field === 'search'
      const before = rereads ? (this.#stale ? kit.search(this.#params) : this.#r.search) : ''
      this.#r = setOnHost(this.#r.href, field, value)
      if (rereads && before !== this.#r.search) {
        kit.reread(this.#params, this.#r.search)
        this.#stale = false
      }
      this.#fresh()
    }
    get href(): string {
      return this.#fresh().href
    }
    set href(v: unknown) {
      this.#set('href', `${v}`)
    }
    get origin(): string {
      return this.#r.origin
    }
    get protocol(): string {
      return this.#r.protocol
    }
    set protocol(v: unknown) {
      this.#set('protocol', `${v}`)
    }
    get username(): string {
      return this.#r.username
    }
    set username(v: unknown) {
      this.#set('username', `${v}`)
    }
    get password(): string {
      return this.#r.password
    }
    set password(v: unknown) {
      this.#set('password', `${v}`)
    }
    get host(): string {
      return this.#r.host
    }
    set host(v: unknown) {
      this.#set('host', `${v}`)
    }
    get hostname(): string {
      return this.#r.hostname
    }
    set hostname(v: unknown) {
      this.#set('hostname', `${v}`)
    }
    get port(): string {
      return this.#r.port
    }
    set port(v: unknown) {
      this.#set('port', `${v}`)
    }
    get pathname(): string {
      return this.#r.pathname
    }
    set pathname(v: unknown) {
      this.#set('pathname', `${v}`)
    }
    get search(): string {
      return this.#fresh().search
    }
    set search(v: unknown) {
      this.#set('search', `${v}`)
    }
    get searchParams(): unknown {
      return this.#params
    }
    get hash(): string {
      return this.#r.hash
    }
    set hash(v: unknown) {
      this.#set('hash', `${v}`)
    }
    toString(): string {
      return this.#fresh().href
    }
    toJSON(): string {
      return this.#fresh().href
    }
    get [SymbolToStringTag](): string {
      return 'URL'
    }
  }
  return { URL, URLSearchParams: kit.URLSearchParams }
}

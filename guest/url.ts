/**
 * `URL` and `URLSearchParams`, hand-written, the same in every backend. The WHATWG parser's common paths:
 * special schemes (http, https, ws, wss, ftp, file) with authority, port and dot-segment resolution,
 * relative references against a base, opaque paths (`mailto:`, `data:`), percent-encoding of each
 * component, and a live `searchParams`. Linear in the input (no backtracking regex), so a giant input costs
 * only its length, and built only from intrinsics captured before the program ran, so a program that
 * poisons Array.prototype or replaces Symbol still gets a working URL.
 *
 * Not done: IDNA (a non-ASCII host stays as given, its ASCII letters lowercased) and IPv4 number forms
 * (test/guest/fixtures/url-corpus.ts lists where it differs from Node's URL). whatwg-url, the reference
 * implementation, was tried and left out: it reads prototype methods as the program left them at every
 * call (a poisoned Array.prototype.push broke URLSearchParams) and took 30 s on a 1.4 MB URL that this
 * parser reads in milliseconds.
 */
import {
  type Any,
  ObjectKeys,
  list,
  NumberParseInt,
  ObjectDefineProperty,
  put,
  ReflectApply,
  StringCtor,
  stringIndexOf,
  stringSlice,
  SymbolIterator,
  SymbolToStringTag,
  TypeErrorCtor,
} from './intrinsics.js'
import {
  SPECIAL_PORTS,
  dropFirst,
  formDecode,
  formEncode,
  joinPath,
  keepFragment,
  keepUserinfo,
  lower,
  normalisePath,
  parseUrl,
  percentEncode,
  schemeOf,
  serialise,
  setTail,
  splitPath,
} from './url-parse.js'

type UrlClasses = { URL: unknown; URLSearchParams: unknown }
let built: UrlClasses | undefined

/** The two classes, built on first use (globals.ts), once per realm: a URL's searchParams is the global's class. */
export function urlClasses(): UrlClasses {
  if (built === undefined) built = buildUrlClasses()
  return built
}

function buildUrlClasses(): UrlClasses {
  let attachParams, reparseParams, setSearchFromParams
  class URLSearchParamsImpl {
    #list = list()
    #url: Any = null
    constructor(init?) {
      if (init === undefined || init === null) return
      if (typeof init === 'object' || typeof init === 'function') {
        if (typeof init[SymbolIterator] === 'function') {
          for (const pair of init) {
            const p = [...pair]
            if (p.length !== 2) throw new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple')
            put(this.#list, [StringCtor(p[0]), StringCtor(p[1])])
          }
        } else {
          const keys = ObjectKeys(init)
          for (let i = 0; i < keys.length; i++) put(this.#list, [keys[i], StringCtor(init[keys[i]])])
        }
        return
      }
      this.#parse(StringCtor(init))
    }
    #parse(s) {
      this.#list = list()
      if (s[0] === '?') s = ReflectApply(stringSlice, s, [1])
      let start = 0
      for (let i = 0; i <= s.length; i++) {
        if (i === s.length || s[i] === '&') {
          const part = ReflectApply(stringSlice, s, [start, i])
          start = i + 1
          if (part === '') continue
          const eq = ReflectApply(stringIndexOf, part, ['='])
          const name = eq >= 0 ? ReflectApply(stringSlice, part, [0, eq]) : part,
            value = eq >= 0 ? ReflectApply(stringSlice, part, [eq + 1]) : ''
          put(this.#list, [formDecode(name), formDecode(value)])
        }
      }
    }
    // Module-private hooks for URL (static blocks, so nothing extra is visible on the class).
    static {
      attachParams = (params, url, search) => {
        params.#url = url
        params.#parse(search)
      }
      reparseParams = (params, search) => {
        params.#parse(search)
      }
    }
    #update() {
      if (this.#url) setSearchFromParams(this.#url, this.toString())
    }
    get size() {
      return this.#list.length
    }
    append(name, value) {
      put(this.#list, [StringCtor(name), StringCtor(value)])
      this.#update()
    }
    delete(name, value) {
      name = StringCtor(name)
      const keep = list()
      for (let i = 0; i < this.#list.length; i++) {
        const p = this.#list[i]
        if (p[0] !== name || (value !== undefined && p[1] !== StringCtor(value))) put(keep, p)
      }
      this.#list = keep
      this.#update()
    }
    get(name) {
      name = StringCtor(name)
      for (let i = 0; i < this.#list.length; i++) if (this.#list[i][0] === name) return this.#list[i][1]
      return null
    }
    getAll(name) {
      name = StringCtor(name)
      const out = []
      for (let i = 0; i < this.#list.length; i++) if (this.#list[i][0] === name) put(out, this.#list[i][1])
      return out
    }
    has(name, value) {
      name = StringCtor(name)
      for (let i = 0; i < this.#list.length; i++)
        if (this.#list[i][0] === name && (value === undefined || this.#list[i][1] === StringCtor(value))) return true
      return false
    }
    set(name, value) {
      name = StringCtor(name)
      value = StringCtor(value)
      const out = list()
      let done = false
      for (let i = 0; i < this.#list.length; i++) {
        const p = this.#list[i]
        if (p[0] !== name) put(out, p)
        else if (!done) {
          put(out, [name, value])
          done = true
        }
      }
      if (!done) put(out, [name, value])
      this.#list = out
      this.#update()
    }
    sort() {
      // A stable insertion sort by name (code units), as the standard asks.
      const a = this.#list
      for (let i = 1; i < a.length; i++) {
        const x = a[i]
        let j = i - 1
        while (j >= 0 && a[j][0] > x[0]) {
          a[j + 1] = a[j]
          j--
        }
        a[j + 1] = x
      }
      this.#update()
    }
    forEach(fn, thisArg) {
      for (let i = 0; i < this.#list.length; i++) ReflectApply(fn, thisArg, [this.#list[i][1], this.#list[i][0], this])
    }
    *entries() {
      for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]
    }
    *keys() {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0]
    }
    *values() {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1]
    }
    [SymbolIterator]() {
      return this.entries()
    }
    toString() {
      let out = ''
      for (let i = 0; i < this.#list.length; i++) out += (i ? '&' : '') + formEncode(this.#list[i][0]) + '=' + formEncode(this.#list[i][1])
      return out
    }
    get [SymbolToStringTag]() {
      return 'URLSearchParams'
    }
  }
  class URLImpl {
    #r
    #params
    constructor(url, base) {
      // biome-ignore lint/complexity/noArguments: a declared parameter keeps the constructor's length at 1, as the standard's
      if (arguments.length === 0) throw new TypeErrorCtor('The "url" argument must be specified')
      const b = base === undefined ? undefined : parseUrl(base instanceof URLImpl ? base.href : StringCtor(base), undefined)
      this.#r = parseUrl(url instanceof URLImpl ? url.href : url, b)
      this.#params = new URLSearchParamsImpl()
      attachParams(this.#params, this, this.#r.search)
    }
    static canParse(url, base) {
      try {
        new URLImpl(url, base)
        return true
      } catch (_) {
        return false
      }
    }
    static parse(url, base) {
      try {
        return new URLImpl(url, base)
      } catch (_) {
        return null
      }
    }
    static {
      setSearchFromParams = (url, text) => {
        url.#r.search = text === '' ? '' : '?' + text
      }
    }
    get href() {
      return serialise(this.#r)
    }
    set href(v) {
      this.#r = parseUrl(v, undefined)
      reparseParams(this.#params, this.#r.search)
    }
    get origin() {
      const r = this.#r
      if (r.protocol === 'file:' || !(r.protocol in SPECIAL_PORTS)) return 'null'
      return r.protocol + '//' + r.hostname + (r.port ? ':' + r.port : '')
    }
    get protocol() {
      return this.#r.protocol
    }
    set protocol(v) {
      const p = lower(StringCtor(v))
      const next = p[p.length - 1] === ':' ? p : p + ':'
      if (next in SPECIAL_PORTS === this.#r.protocol in SPECIAL_PORTS && schemeOf(next) === next.length - 1) {
        this.#r.protocol = next
        if (SPECIAL_PORTS[next] === this.#r.port) this.#r.port = ''
      }
    }
    get username() {
      return this.#r.username
    }
    set username(v) {
      if (this.#r.hasHost && this.#r.hostname) this.#r.username = percentEncode(StringCtor(v), keepUserinfo)
    }
    get password() {
      return this.#r.password
    }
    set password(v) {
      if (this.#r.hasHost && this.#r.hostname) this.#r.password = percentEncode(StringCtor(v), keepUserinfo)
    }
    get host() {
      return this.#r.hostname + (this.#r.port ? ':' + this.#r.port : '')
    }
    set host(v) {
      try {
        const t = parseUrl(this.#r.protocol + '//' + StringCtor(v), undefined)
        this.#r.hostname = t.hostname
        this.#r.port = t.port
      } catch (_) {}
    }
    get hostname() {
      return this.#r.hostname
    }
    set hostname(v) {
      try {
        this.#r.hostname = parseUrl(this.#r.protocol + '//' + StringCtor(v), undefined).hostname
      } catch (_) {}
    }
    get port() {
      return this.#r.port
    }
    set port(v) {
      const s = StringCtor(v)
      if (s === '') {
        this.#r.port = ''
        return
      }
      let digits = ''
      for (let i = 0; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) digits += s[i]
      if (digits === '') return
      const n = NumberParseInt(digits, 10)
      if (n > 65535) return
      this.#r.port = SPECIAL_PORTS[this.#r.protocol] === StringCtor(n) ? '' : StringCtor(n)
    }
    get pathname() {
      return this.#r.pathname
    }
    set pathname(v) {
      if (this.#r.opaque) return
      const special = this.#r.protocol in SPECIAL_PORTS
      let s = StringCtor(v)
      if (s[0] !== '/' && !(special && s[0] === '\\')) s = '/' + s
      this.#r.pathname = joinPath(normalisePath(dropFirst(splitPath(s, special))))
    }
    get search() {
      return this.#r.search
    }
    set search(v) {
      const s = StringCtor(v)
      setTail(this.#r, {
        query: s[0] === '?' ? ReflectApply(stringSlice, s, [1]) : s,
        hash: this.#r.hash ? ReflectApply(stringSlice, this.#r.hash, [1]) : null,
      })
      reparseParams(this.#params, this.#r.search)
    }
    get searchParams() {
      return this.#params
    }
    get hash() {
      return this.#r.hash
    }
    set hash(v) {
      const s = StringCtor(v)
      const h = s[0] === '#' ? ReflectApply(stringSlice, s, [1]) : s
      this.#r.hash = h === '' ? '' : '#' + percentEncode(h, keepFragment)
    }
    toString() {
      return this.href
    }
    toJSON() {
      return this.href
    }
    get [SymbolToStringTag]() {
      return 'URL'
    }
  }
  ObjectDefineProperty(URLImpl, 'name', { __proto__: null, value: 'URL' })
  ObjectDefineProperty(URLSearchParamsImpl, 'name', { __proto__: null, value: 'URLSearchParams' })
  return { URL: URLImpl, URLSearchParams: URLSearchParamsImpl }
}

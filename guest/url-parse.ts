/**
 * The URL parser behind guest/url.ts: the WHATWG parser's common paths, linear in the input, from captured
 * intrinsics only. Each component's percent-encode set, host and path rules, relative resolution, and the
 * form encoding URLSearchParams uses.
 */
import {
  charCodeOf,
  list,
  NumberParseInt,
  ObjectDefineProperty,
  put,
  ReflectApply,
  StringCtor,
  StringFromCharCode,
  stringIndexOf,
  stringSlice,
  TypeErrorCtor,
} from './intrinsics.js'
import { utf8Decode, utf8Encode } from './text.js'

export const SPECIAL_PORTS = { __proto__: null, 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' }
export const HEX = '0123456789ABCDEF'
export function invalidUrl(input) {
  const e = new TypeErrorCtor('Invalid URL' + (input !== undefined ? ': ' + ReflectApply(stringSlice, StringCtor(input), [0, 200]) : ''))
  ObjectDefineProperty(e, 'code', { __proto__: null, value: 'ERR_INVALID_URL', writable: true, configurable: true })
  return e
}
/** Percent-encode every byte of s outside the set keep(code) allows (ASCII only is ever kept). */
export function percentEncode(s, keep) {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = charCodeOf(s, i)
    if (c < 0x80 && (c > 0x20 || (c === 0x20 && keep === keepOpaque)) && c !== 0x7f && keep(c)) {
      out += s[i]
      continue
    }
    if (c === 0x25 && i + 2 < s.length + 0 && isHex(s[i + 1]) && isHex(s[i + 2])) {
      out += '%'
      continue
    }
    let ch = s[i]
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      ch += s[i + 1]
      i++
    }
    const bytes = utf8Encode(ch)
    for (let j = 0; j < bytes.length; j++) out += '%' + HEX[bytes[j] >> 4] + HEX[bytes[j] & 15]
  }
  return out
}
export function isHex(ch) {
  return ch !== undefined && ReflectApply(stringIndexOf, '0123456789abcdefABCDEF', [ch]) >= 0
}
export function percentDecode(s) {
  if (ReflectApply(stringIndexOf, s, ['%']) < 0) return s
  const bytes = list()
  let out = ''
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%' && isHex(s[i + 1]) && isHex(s[i + 2])) {
      put(bytes, NumberParseInt(s[i + 1] + s[i + 2], 16))
      i += 2
      continue
    }
    if (bytes.length) {
      out += utf8Decode(bytes, false)
      bytes.length = 0
    }
    out += s[i]
  }
  if (bytes.length) out += utf8Decode(bytes, false)
  return out
}
// Code sets: which ASCII characters a component keeps as they are.
export const keepPath = (c) => c !== 0x22 && c !== 0x23 && c !== 0x3c && c !== 0x3e && c !== 0x3f && c !== 0x60 && c !== 0x7b && c !== 0x7d
export const keepOpaque = (_c) => true
export const keepQuery = (c) => c !== 0x22 && c !== 0x23 && c !== 0x3c && c !== 0x3e
export const keepSpecialQuery = (c) => keepQuery(c) && c !== 0x27
export const keepFragment = (c) => c !== 0x22 && c !== 0x3c && c !== 0x3e && c !== 0x60
export const keepUserinfo = (c) =>
  keepPath(c) &&
  c !== 0x2f &&
  c !== 0x3a &&
  c !== 0x3b &&
  c !== 0x3d &&
  c !== 0x40 &&
  c !== 0x5b &&
  c !== 0x5c &&
  c !== 0x5d &&
  c !== 0x5e &&
  c !== 0x7c
export function lower(s) {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = charCodeOf(s, i)
    out += c >= 65 && c <= 90 ? StringFromCharCode(c + 32) : s[i]
  }
  return out
}
export function cleanInput(s) {
  let start = 0,
    end = s.length
  while (start < end && charCodeOf(s, start) <= 0x20) start++
  while (end > start && charCodeOf(s, end - 1) <= 0x20) end--
  let out = ''
  for (let i = start; i < end; i++) {
    const ch = s[i]
    if (ch !== '\t' && ch !== '\n' && ch !== '\r') out += ch
  }
  return out
}
export function schemeOf(s) {
  const c0 = charCodeOf(s, 0)
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) return -1
  for (let i = 1; i < s.length; i++) {
    const c = charCodeOf(s, i)
    if (c === 0x3a) return i
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 0x2b || c === 0x2d || c === 0x2e
    if (!ok) return -1
  }
  return -1
}
export function parseHost(raw, special, input) {
  if (raw[0] === '[') {
    if (raw[raw.length - 1] !== ']') throw invalidUrl(input)
    for (let i = 1; i < raw.length - 1; i++) if (!isHex(raw[i]) && raw[i] !== ':' && raw[i] !== '.') throw invalidUrl(input)
    return lower(raw)
  }
  if (!special)
    return percentEncode(
      raw,
      (c) =>
        c !== 0x20 &&
        c !== 0x23 &&
        c !== 0x3c &&
        c !== 0x3e &&
        c !== 0x3f &&
        c !== 0x40 &&
        c !== 0x5b &&
        c !== 0x5c &&
        c !== 0x5d &&
        c !== 0x5e &&
        c !== 0x7c &&
        c !== 0x2f &&
        c !== 0x3a,
    )
  const host = lower(percentDecode(raw))
  if (host === '') throw invalidUrl(input)
  for (let i = 0; i < host.length; i++) {
    const ch = host[i]
    if (
      ch <= ' ' ||
      ch === '#' ||
      ch === '%' ||
      ch === '/' ||
      ch === ':' ||
      ch === '<' ||
      ch === '>' ||
      ch === '?' ||
      ch === '@' ||
      ch === '[' ||
      ch === '\\' ||
      ch === ']' ||
      ch === '^' ||
      ch === '|'
    )
      throw invalidUrl(input)
  }
  return host
}
/** Resolve '.' and '..' segments; a trailing '.' or '..' leaves a trailing slash. */
export function normalisePath(segments) {
  const out = list()
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]
    const low = seg.length === 3 || seg.length === 4 || seg.length === 6 ? lower(seg) : seg
    const dot = seg === '.' || low === '%2e',
      dotdot = seg === '..' || low === '.%2e' || low === '%2e.' || low === '%2e%2e'
    const last = i === segments.length - 1
    if (dotdot) {
      if (out.length) out.length--
      if (last) put(out, '')
    } else if (dot) {
      if (last) put(out, '')
    } else put(out, seg)
  }
  return out
}
export function splitPath(path, special) {
  const segs = list()
  let cur = ''
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]
    if (ch === '/' || (special && ch === '\\')) {
      put(segs, cur)
      cur = ''
    } else cur += ch
  }
  put(segs, cur)
  return segs
}
export function joinPath(segs) {
  let s = ''
  for (let i = 0; i < segs.length; i++) s += '/' + percentEncode(segs[i], keepPath)
  return s
}
/** Split off '#fragment' and '?query' from the rest. */
export function splitTail(s) {
  let hash = null,
    query = null,
    rest = s
  const h = ReflectApply(stringIndexOf, rest, ['#'])
  if (h >= 0) {
    hash = ReflectApply(stringSlice, rest, [h + 1])
    rest = ReflectApply(stringSlice, rest, [0, h])
  }
  const q = ReflectApply(stringIndexOf, rest, ['?'])
  if (q >= 0) {
    query = ReflectApply(stringSlice, rest, [q + 1])
    rest = ReflectApply(stringSlice, rest, [0, q])
  }
  return { rest: rest, query: query, hash: hash }
}
export function parseUrl(input, base) {
  const s = cleanInput(StringCtor(input))
  const colon = schemeOf(s)
  const r = {
    protocol: '',
    username: '',
    password: '',
    hostname: '',
    port: '',
    pathname: '',
    search: '',
    hash: '',
    opaque: false,
    hasHost: false,
  }
  let rest
  if (colon > 0) {
    r.protocol = lower(ReflectApply(stringSlice, s, [0, colon + 1]))
    rest = ReflectApply(stringSlice, s, [colon + 1])
    const special = r.protocol in SPECIAL_PORTS
    // "http:foo" against an http base is relative, as browsers read it.
    if (special && base && base.protocol === r.protocol && rest[0] !== '/' && rest[0] !== '\\') return resolveRelative(rest, base, input)
    const tail = splitTail(rest)
    let body = tail.rest
    const slashes = special
      ? (body[0] === '/' || body[0] === '\\') && (body[1] === '/' || body[1] === '\\')
      : body[0] === '/' && body[1] === '/'
    if (special && !slashes && r.protocol !== 'file:') {
      // "https:example.com" and "https:/example.com": the host follows the slashes that are there.
      let k = 0
      while (body[k] === '/' || body[k] === '\\') k++
      body = '//' + ReflectApply(stringSlice, body, [k])
    }
    if (slashes || (special && r.protocol !== 'file:')) {
      let k = 2
      while (special && r.protocol !== 'file:' && (body[k] === '/' || body[k] === '\\')) k++
      let end = k
      while (end < body.length && body[end] !== '/' && !(special && body[end] === '\\')) end++
      parseAuthority(r, ReflectApply(stringSlice, body, [k, end]), special, input)
      body = ReflectApply(stringSlice, body, [end])
      r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, special))))
      if (r.pathname === '' && special) r.pathname = '/'
    } else if (r.protocol === 'file:') {
      r.hasHost = true
      r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, true))))
      if (r.pathname === '') r.pathname = '/'
    } else if (body[0] === '/') {
      r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, false))))
    } else {
      r.opaque = true
      r.pathname = percentEncode(body, keepOpaque)
    }
    setTail(r, tail)
    return r
  }
  if (!base) throw invalidUrl(input)
  return resolveRelative(s, base, input)
}
export function parseAuthority(r, auth, special, input) {
  r.hasHost = true
  const at = auth.lastIndexOf('@')
  if (at >= 0) {
    const info = ReflectApply(stringSlice, auth, [0, at])
    const c = ReflectApply(stringIndexOf, info, [':'])
    r.username = percentEncode(c >= 0 ? ReflectApply(stringSlice, info, [0, c]) : info, keepUserinfo)
    r.password = c >= 0 ? percentEncode(ReflectApply(stringSlice, info, [c + 1]), keepUserinfo) : ''
    auth = ReflectApply(stringSlice, auth, [at + 1])
  }
  let hostPart = auth,
    port = ''
  const close = ReflectApply(stringIndexOf, auth, [']'])
  const pc = auth.lastIndexOf(':')
  if (pc >= 0 && pc > close) {
    hostPart = ReflectApply(stringSlice, auth, [0, pc])
    port = ReflectApply(stringSlice, auth, [pc + 1])
  }
  if (port !== '') {
    for (let i = 0; i < port.length; i++) {
      const c = charCodeOf(port, i)
      if (c < 48 || c > 57) throw invalidUrl(input)
    }
    const n = NumberParseInt(port, 10)
    if (n > 65535) throw invalidUrl(input)
    port = StringCtor(n)
    if (SPECIAL_PORTS[r.protocol] === port) port = ''
  }
  if (hostPart === '' && special && r.protocol !== 'file:') throw invalidUrl(input)
  r.hostname = hostPart === '' ? '' : parseHost(hostPart, special, input)
  r.port = port
}
export function setTail(r, tail) {
  const special = r.protocol in SPECIAL_PORTS
  r.search = tail.query === null || tail.query === '' ? '' : '?' + percentEncode(tail.query, special ? keepSpecialQuery : keepQuery)
  r.hash = tail.hash === null || tail.hash === '' ? '' : '#' + percentEncode(tail.hash, keepFragment)
}
export function resolveRelative(s, base, input) {
  const special = base.protocol in SPECIAL_PORTS
  const r = {
    protocol: base.protocol,
    username: base.username,
    password: base.password,
    hostname: base.hostname,
    port: base.port,
    pathname: base.pathname,
    search: base.search,
    hash: '',
    opaque: base.opaque,
    hasHost: base.hasHost,
  }
  if (base.opaque && s[0] !== '#') throw invalidUrl(input)
  const tail = splitTail(s)
  const body = tail.rest
  const slash = (ch) => ch === '/' || (special && ch === '\\')
  if (slash(body[0]) && slash(body[1])) {
    // scheme-relative: a new authority
    return parseUrl(base.protocol + s, undefined)
  }
  if (body === '') {
    if (tail.query !== null) setTail(r, tail)
    else {
      r.hash = tail.hash ? '#' + percentEncode(tail.hash, keepFragment) : ''
      return r
    }
    return r
  }
  let segs
  if (slash(body[0])) segs = dropFirst(splitPath(body, special))
  else {
    const baseSegs = dropFirst(splitPath(base.pathname, special))
    baseSegs.length = baseSegs.length ? baseSegs.length - 1 : 0
    segs = baseSegs
    const more = splitPath(body, special)
    for (let i = 0; i < more.length; i++) put(segs, more[i])
  }
  r.pathname = joinPath(normalisePath(segs))
  setTail(r, tail)
  return r
}
export function dropFirst(a) {
  const out = list()
  for (let i = 1; i < a.length; i++) put(out, a[i])
  return out
}
export function serialise(r) {
  let out = r.protocol
  if (r.hasHost) {
    out += '//'
    if (r.username || r.password) out += r.username + (r.password ? ':' + r.password : '') + '@'
    out += r.hostname + (r.port ? ':' + r.port : '')
  }
  return out + r.pathname + r.search + r.hash
}

export function formDecode(s) {
  let t = ''
  for (let i = 0; i < s.length; i++) t += s[i] === '+' ? ' ' : s[i]
  return percentDecode(t)
}
export function formEncode(s) {
  let out = ''
  const bytes = utf8Encode(s)
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f)
      out += StringFromCharCode(c)
    else if (c === 0x20) out += '+'
    else out += '%' + HEX[c >> 4] + HEX[c & 15]
  }
  return out
}

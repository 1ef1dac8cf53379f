/**
 * Console formatting inside the sandbox, in the manner of Node's `util.inspect` and `util.format`: what a
 * model expects to see when it logs a Map, a Date, an Error or a class instance (not `{}`), and printf
 * directives (`%s %d %i %f %o %O %j %c %%`).
 *
 * Hand-written, not a library: Node's own `util.inspect` is not a package, and the ports of it read values
 * through their prototypes (`value.forEach`, `Object.keys` as the program left them). This builds strings
 * with `+` and indexes and reads the program's values only through captured functions
 * (`ReflectApply(mapForEach, m, …)`), so a patched `Map.prototype.forEach` cannot change how a Map prints.
 * Getters on the program's own objects do run: they are the program's code in its own realm.
 */
import {
  ArrayIsArray,
  attempt,
  arrayBufferByteLength,
  dateGetTime,
  dateToISOString,
  ErrorCtor,
  functionToString,
  JSONstringify,
  list,
  MapCtor,
  mapDelete,
  mapForEach,
  mapGet,
  mapHas,
  mapSet,
  mapSizeGetter,
  MathMin,
  NumberCtor,
  NumberIsNaN,
  NumberParseFloat,
  NumberParseInt,
  NumberToString,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
  ObjectPrototypeToString,
  put,
  ReflectApply,
  ReflectOwnKeys,
  RegExpPrototype,
  regexpSourceGetter,
  regexpToString,
  setForEach,
  setSizeGetter,
  StringCtor,
  symbolToString,
  typedArrayLength,
  typedArrayTag,
} from './intrinsics.js'

const INSPECT_DEPTH = 4,
  MAX_ITEMS = 100,
  BREAK_LENGTH = 76,
  MAX_STRING = 10000
function isIdentifier(k) {
  if (k.length === 0) return false
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i)
    const ok = c === 36 || c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (i > 0 && c >= 48 && c <= 57)
    if (!ok) return false
  }
  return true
}
export function quoteString(s) {
  let out = "'"
  const n = MathMin(s.length, MAX_STRING)
  for (let i = 0; i < n; i++) {
    const ch = s[i],
      c = s.charCodeAt(i)
    if (ch === "'") out += "\\'"
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (c < 0x20 || c === 0x7f) out += '\\x' + (c < 16 ? '0' : '') + NumberToString(c, 16)
    else out += ch
  }
  out += "'"
  if (s.length > n) out += '... ' + (s.length - n) + ' more characters'
  return out
}
export function joinParts(parts, sep) {
  let out = ''
  for (let i = 0; i < parts.length; i++) out += (i === 0 ? '' : sep) + parts[i]
  return out
}
function indentLines(text) {
  let out = '  '
  for (let i = 0; i < text.length; i++) out += text[i] === '\n' ? '\n  ' : text[i]
  return out
}
/** Node's layout: one line when short, else one entry per line, indented by two. */
function braces(open, parts, close, prefix) {
  const head = prefix ? prefix + ' ' : ''
  if (parts.length === 0) return head + open + close
  let total = head.length + open.length
  let multiline = false
  for (let i = 0; i < parts.length; i++) {
    total += parts[i].length + 2
    for (let j = 0; j < parts[i].length && !multiline; j++) if (parts[i][j] === '\n') multiline = true
  }
  if (!multiline && total + close.length <= BREAK_LENGTH) return head + open + ' ' + joinParts(parts, ', ') + ' ' + close
  const lines = list()
  for (let i = 0; i < parts.length; i++) put(lines, indentLines(parts[i]))
  return head + open + '\n' + joinParts(lines, ',\n') + '\n' + close
}
function className(v) {
  const proto = attempt(() => ObjectGetPrototypeOf(v), undefined)
  if (proto === undefined) return ''
  if (proto === null) return null
  const ctor = attempt(() => ObjectGetOwnPropertyDescriptor(proto, 'constructor')?.value, undefined)
  const name = typeof ctor === 'function' ? ctor.name : ''
  return typeof name === 'string' ? name : ''
}
function keyText(k) {
  if (typeof k === 'symbol') return '[' + ReflectApply(symbolToString, k, []) + ']'
  return isIdentifier(k) ? k : quoteString(k)
}
function ownEntries(v, skip, ctx, depth) {
  const parts = list()
  const keys = ReflectOwnKeys(v)
  let shown = 0,
    total = 0
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]
    if (skip !== undefined && typeof k === 'string' && skip(k)) continue
    const d = ObjectGetOwnPropertyDescriptor(v, k)
    if (!d?.enumerable) continue
    total++
    if (shown >= MAX_ITEMS) continue
    shown++
    if (d.get || d.set) put(parts, keyText(k) + ': ' + (d.get && d.set ? '[Getter/Setter]' : d.get ? '[Getter]' : '[Setter]'))
    else put(parts, keyText(k) + ': ' + inspectValue(d.value, depth + 1, ctx))
  }
  if (total > shown) put(parts, '... ' + (total - shown) + ' more properties')
  return parts
}
function isIndex(k) {
  if (k.length === 0 || k.length > 10) return false
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return k === '0' || k[0] !== '0'
}
export function functionText(v) {
  const src = attempt(() => ReflectApply(functionToString, v, []), '')
  const name = typeof v.name === 'string' && v.name ? v.name : ''
  if (src.length > 5 && src[0] === 'c' && src[1] === 'l' && src[2] === 'a' && src[3] === 's' && src[4] === 's')
    return '[class ' + (name || '(anonymous)') + ']'
  const kind = src[0] === 'a' && src[1] === 's' && src[2] === 'y' && src[3] === 'n' && src[4] === 'c' ? 'AsyncFunction' : 'Function'
  return '[' + kind + (name ? ': ' + name : ' (anonymous)') + ']'
}
function errorText(v, depth, ctx) {
  const name = attempt(() => StringCtor(v.name), 'Error')
  const message = attempt(() => StringCtor(v.message), '')
  const stack = attempt(() => v.stack, undefined)
  let head = typeof stack === 'string' && stack.length > 0 ? stack : name + (message ? ': ' + message : '')
  if (depth > 0 && typeof stack === 'string') head = '[' + name + (message ? ': ' + message : '') + ']'
  const extra = ownEntries(v, (k) => k === 'stack' || k === 'message' || k === 'name', ctx, depth)
  return extra.length ? head + ' ' + braces('{', extra, '}', '') : head
}
function collectionEntries(v, depth, ctx, isMap) {
  const parts = list()
  let count = 0
  const each = isMap
    ? (value, key) => {
        if (count++ < MAX_ITEMS) put(parts, inspectValue(key, depth + 1, ctx) + ' => ' + inspectValue(value, depth + 1, ctx))
      }
    : (value) => {
        if (count++ < MAX_ITEMS) put(parts, inspectValue(value, depth + 1, ctx))
      }
  ReflectApply(isMap ? mapForEach : setForEach, v, [each])
  if (count > MAX_ITEMS) put(parts, '... ' + (count - MAX_ITEMS) + ' more items')
  return parts
}
/** Which built-in a value is, read from internal slots (not from its prototype, which a program may fake). */
export function brandOf(v) {
  if (ArrayIsArray(v)) return 'Array'
  // A plain object (a literal, JSON.parse's, Object.create(null)) has no internal slot to probe, and it is
  // most of what a program returns or logs: each probe below throws for it (five TypeErrors per object,
  // slow over many). An exotic object given Object.prototype or null as
  // its prototype reads as plain (its own properties): only the program's own view of itself can tell.
  const proto = attempt(() => ObjectGetPrototypeOf(v), undefined)
  if (proto === ObjectPrototype || proto === null) return 'Object'
  // Each getter throws unless `v` has the internal slot it reads.
  const has = (getter) =>
    attempt(() => {
      ReflectApply(getter, v, [])
      return true
    }, false)
  if (has(mapSizeGetter)) return 'Map'
  if (has(setSizeGetter)) return 'Set'
  if (has(dateGetTime)) return 'Date'
  if (v !== RegExpPrototype && has(regexpSourceGetter)) return 'RegExp'
  if (attempt(() => ReflectApply(typedArrayTag, v, []) !== undefined, false)) return 'TypedArray'
  if (has(arrayBufferByteLength)) return 'ArrayBuffer'
  if (v instanceof ErrorCtor) return 'Error'
  if (ObjectPrototypeToString(v) === '[object Promise]') return 'Promise'
  return 'Object'
}
function inspectValue(v, depth, ctx) {
  const t = typeof v
  if (t === 'string') return quoteString(v)
  if (t === 'number') return v === 0 && 1 / v < 0 ? '-0' : StringCtor(v)
  if (t === 'boolean' || t === 'undefined' || v === null) return StringCtor(v)
  if (t === 'bigint') return StringCtor(v) + 'n'
  if (t === 'symbol') return ReflectApply(symbolToString, v, [])
  if (t === 'function') return functionText(v)
  // On the way down: a value met again is a cycle; it gets a number and its first appearance a <ref>.
  if (ReflectApply(mapHas, ctx.stack, [v])) {
    let id = ReflectApply(mapGet, ctx.stack, [v])
    if (id === 0) {
      id = ++ctx.refs
      ReflectApply(mapSet, ctx.stack, [v, id])
    }
    return '[Circular *' + id + ']'
  }
  const brand = brandOf(v)
  if (brand === 'Date') return dateText(v)
  if (brand === 'RegExp') return ReflectApply(regexpToString, v, [])
  if (brand === 'Promise') return 'Promise { <not awaited> }'
  if (brand === 'Error') {
    ReflectApply(mapSet, ctx.stack, [v, 0])
    try {
      return withRef(v, errorText(v, depth, ctx), ctx)
    } finally {
      ReflectApply(mapDelete, ctx.stack, [v])
    }
  }
  const cls = className(v)
  if (depth > INSPECT_DEPTH) return brand === 'Array' ? '[Array]' : '[' + (cls || 'Object') + ']'
  ReflectApply(mapSet, ctx.stack, [v, 0])
  try {
    let text
    if (brand === 'Map')
      text = braces('{', collectionEntries(v, depth, ctx, true), '}', (cls || 'Map') + '(' + ReflectApply(mapSizeGetter, v, []) + ')')
    else if (brand === 'Set')
      text = braces('{', collectionEntries(v, depth, ctx, false), '}', (cls || 'Set') + '(' + ReflectApply(setSizeGetter, v, []) + ')')
    else if (brand === 'TypedArray') {
      const len = ReflectApply(typedArrayLength, v, [])
      const parts = list()
      for (let i = 0; i < len && i < MAX_ITEMS; i++) put(parts, inspectValue(v[i], depth + 1, ctx))
      if (len > MAX_ITEMS) put(parts, '... ' + (len - MAX_ITEMS) + ' more items')
      text = braces('[', parts, ']', ReflectApply(typedArrayTag, v, []) + '(' + len + ')')
    } else if (brand === 'ArrayBuffer') text = 'ArrayBuffer { byteLength: ' + ReflectApply(arrayBufferByteLength, v, []) + ' }'
    else if (brand === 'Array') {
      const len = v.length
      const parts = list()
      let holes = 0
      // Index by index up to the cap only: a Proxy may claim any length.
      const upTo = MathMin(len, MAX_ITEMS)
      for (let i = 0; i < upTo; i++) {
        if (!ObjectHasOwn(v, i)) {
          holes++
          continue
        }
        if (holes) {
          put(parts, '<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>')
          holes = 0
        }
        put(parts, inspectValue(v[i], depth + 1, ctx))
      }
      if (holes) put(parts, '<' + holes + ' empty item' + (holes > 1 ? 's' : '') + '>')
      if (len > MAX_ITEMS) put(parts, '... ' + (len - MAX_ITEMS) + ' more items')
      const extra = ownEntries(v, (k) => isIndex(k) || k === 'length', ctx, depth)
      for (let i = 0; i < extra.length; i++) put(parts, extra[i])
      text = braces('[', parts, ']', cls && cls !== 'Array' ? cls + '(' + len + ')' : '')
    } else {
      const prefix = cls === null ? '[Object: null prototype]' : cls && cls !== 'Object' ? cls : ''
      text = braces('{', ownEntries(v, undefined, ctx, depth), '}', prefix)
    }
    return withRef(v, text, ctx)
  } finally {
    ReflectApply(mapDelete, ctx.stack, [v])
  }
}
/** A Date as its ISO text (what JSON and Node's inspect show). */
export function dateText(v) {
  const time = ReflectApply(dateGetTime, v, [])
  return !NumberIsNaN(time) ? ReflectApply(dateToISOString, v, []) : 'Invalid Date'
}
function withRef(v, text, ctx) {
  const id = ReflectApply(mapGet, ctx.stack, [v])
  return id ? '<ref *' + id + '> ' + text : text
}
export function inspect(v) {
  return inspectValue(v, 0, { stack: new MapCtor(), refs: 0 })
}
/** One console argument: strings as they are, everything else inspected. */
function formatArg(v) {
  return typeof v === 'string' ? v : inspect(v)
}
/** util.format: printf directives in a first string argument, the rest joined by spaces. */
export function formatLogArgs(args) {
  const n = args.length
  if (n === 0) return ''
  let out = '',
    next = 0
  const first = args[0]
  if (typeof first === 'string' && n > 1) {
    next = 1
    let i = 0
    while (i < first.length) {
      const ch = first[i]
      if (ch === '%' && i + 1 < first.length) {
        const d = first[i + 1]
        if (d === '%') {
          out += '%'
          i += 2
          continue
        }
        if (next < n && (d === 's' || d === 'd' || d === 'i' || d === 'f' || d === 'j' || d === 'o' || d === 'O' || d === 'c')) {
          const a = args[next++]
          if (d === 's')
            out +=
              typeof a === 'string'
                ? a
                : typeof a === 'bigint'
                  ? StringCtor(a) + 'n'
                  : typeof a === 'symbol'
                    ? ReflectApply(symbolToString, a, [])
                    : (a !== null && typeof a === 'object') || typeof a === 'function'
                      ? inspect(a)
                      : StringCtor(a)
          else if (d === 'd') out += typeof a === 'bigint' ? StringCtor(a) + 'n' : typeof a === 'symbol' ? 'NaN' : StringCtor(NumberCtor(a))
          else if (d === 'i')
            out += typeof a === 'bigint' ? StringCtor(a) + 'n' : typeof a === 'symbol' ? 'NaN' : StringCtor(NumberParseInt(a))
          else if (d === 'f') out += typeof a === 'symbol' ? 'NaN' : StringCtor(NumberParseFloat(a))
          else if (d === 'j') {
            try {
              const j = JSONstringify(a)
              out += j === undefined ? 'undefined' : j
            } catch {
              out += '[Circular]'
            }
          } else if (d === 'o' || d === 'O') out += inspect(a)
          i += 2
          continue
        }
      }
      out += ch
      i++
    }
  }
  for (; next < n; next++) out += (out.length || next > 0 ? ' ' : '') + formatArg(args[next])
  return out
}

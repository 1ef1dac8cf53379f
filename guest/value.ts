/**
 * The return value as JSON, inside the sandbox: what JSON cannot hold is converted, best effort, and each
 * kind of conversion is named once in a note, so the model knows what it is reading — a Map is never `{}`,
 * a BigInt or a cycle never turns the whole answer into nothing.
 *
 *   Map → object (or [key, value] pairs when a key is not a string or number) · Set → array
 *   Date → ISO string · BigInt → "10n" · cycle → "[Circular]" · NaN/±Infinity → "NaN"/"Infinity"
 *   Error → { name, message, code?, … } · typed array / ArrayBuffer → array of numbers
 *   RegExp → "/x/g" · undefined, function, symbol → dropped (as JSON does), named in the note
 */
import { brandOf, dateText, joinParts } from './inspect.js'
import {
  type Any,
  attempt,
  defineField,
  JSONstringify,
  list,
  mapEntries,
  NumberIsFinite,
  ObjectCreate,
  ObjectKeys,
  put,
  ReflectApply,
  regexpToString,
  SetCtor,
  setAdd,
  setDelete,
  setHas,
  setValues,
  StringCtor,
  typedArrayLength,
  typedArrayTag,
  Uint8ArrayCtor,
} from './intrinsics.js'

const MAX_VALUE_DEPTH = 200
export function valueToJson(value) {
  if (value === undefined) return { json: undefined, note: undefined }
  const kinds = list()
  const seenKinds = ObjectCreate(null)
  function noteKind(k) {
    if (!seenKinds[k]) {
      seenKinds[k] = true
      put(kinds, k)
    }
  }
  const stack = new SetCtor()
  function convert(v, depth) {
    const t = typeof v
    if (v === null || t === 'string' || t === 'boolean') return v
    if (t === 'number') {
      if (NumberIsFinite(v)) return v
      noteKind('NaN/Infinity→string')
      return StringCtor(v)
    }
    if (t === 'bigint') {
      noteKind('BigInt→string "' + StringCtor(v) + 'n"')
      return StringCtor(v) + 'n'
    }
    if (t === 'undefined') return undefined
    if (t === 'function') {
      noteKind('function dropped')
      return undefined
    }
    if (t === 'symbol') {
      noteKind('symbol dropped')
      return undefined
    }
    if (ReflectApply(setHas, stack, [v])) {
      noteKind('cycle→"[Circular]"')
      return '[Circular]'
    }
    if (depth > MAX_VALUE_DEPTH) {
      noteKind('nesting deeper than ' + MAX_VALUE_DEPTH + '→"[Deep]"')
      return '[Deep]'
    }
    const brand = brandOf(v)
    if (brand === 'Date') {
      noteKind('Date→ISO string')
      return dateText(v)
    }
    if (brand === 'RegExp') {
      noteKind('RegExp→string')
      return ReflectApply(regexpToString, v, [])
    }
    if (brand === 'Promise') {
      noteKind('a Promise→"[Promise]" (await it)')
      return '[Promise]'
    }
    ReflectApply(setAdd, stack, [v])
    try {
      if (brand === 'Map') {
        const pairs = mapEntries(v)
        let plainKeys = true
        for (let i = 0; i < pairs.length; i++) if (typeof pairs[i][0] !== 'string' && typeof pairs[i][0] !== 'number') plainKeys = false
        if (plainKeys) {
          noteKind('Map→object')
          const o = ObjectCreate(null)
          for (let i = 0; i < pairs.length; i++) {
            const c = convert(pairs[i][1], depth + 1)
            if (c !== undefined) defineField(o, StringCtor(pairs[i][0]), c)
          }
          return o
        }
        noteKind('Map→[key, value] pairs')
        const out = list()
        for (let i = 0; i < pairs.length; i++)
          put(out, [nullIfUndefined(convert(pairs[i][0], depth + 1)), nullIfUndefined(convert(pairs[i][1], depth + 1))])
        return out
      }
      if (brand === 'Set') {
        noteKind('Set→array')
        const values = setValues(v)
        const out = list()
        for (let i = 0; i < values.length; i++) put(out, nullIfUndefined(convert(values[i], depth + 1)))
        return out
      }
      if (brand === 'TypedArray' || brand === 'ArrayBuffer') {
        noteKind(brand === 'ArrayBuffer' ? 'ArrayBuffer→array of bytes' : ReflectApply(typedArrayTag, v, []) + '→array')
        const view = brand === 'ArrayBuffer' ? new Uint8ArrayCtor(v) : v
        const len = ReflectApply(typedArrayLength, view, [])
        const out = list()
        for (let i = 0; i < len; i++) {
          const x = view[i]
          put(out, typeof x === 'bigint' ? StringCtor(x) + 'n' : x)
        }
        return out
      }
      if (brand === 'Error') {
        noteKind('Error→{ name, message' + (v && v.code !== undefined ? ', code' : '') + ' }')
        const o = ObjectCreate(null)
        defineField(o, 'name', safeString(v, 'name', 'Error'))
        defineField(o, 'message', safeString(v, 'message', ''))
        copyOwn(v, o, depth, (k) => k === 'stack' || k === 'name' || k === 'message')
        return o
      }
      if (brand === 'Array') {
        const out = list()
        const len = v.length
        for (let i = 0; i < len; i++) put(out, nullIfUndefined(convert(v[i], depth + 1)))
        return out
      }
      // toJSON first, as JSON.stringify does (a class may define how it is sent).
      const toJSON = v.toJSON
      if (typeof toJSON === 'function') return convert(ReflectApply(toJSON, v, ['']), depth + 1)
      const o = ObjectCreate(null)
      copyOwn(v, o, depth, undefined)
      return o
    } finally {
      ReflectApply(setDelete, stack, [v])
    }
  }
  function nullIfUndefined(x) {
    return x === undefined ? null : x
  }
  function safeString(o, key, fallback) {
    return attempt(() => {
      const s = o[key]
      return s === undefined ? fallback : StringCtor(s)
    }, fallback)
  }
  function copyOwn(from, to, depth, skip) {
    const keys = ObjectKeys(from)
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      if (skip?.(k)) continue
      const c = convert(from[k], depth + 1)
      if (c !== undefined) defineField(to, k, c)
    }
  }
  let converted
  try {
    converted = convert(value, 0)
  } catch (e) {
    const why = attempt(() => StringCtor((e as Any)?.message), 'it could not be read')
    return { json: undefined, note: 'the return value could not be reported: ' + why }
  }
  const json = converted === undefined ? undefined : JSONstringify(converted)
  const note = kinds.length ? 'converted for JSON: ' + joinParts(kinds, ', ') : undefined
  return {
    json: json,
    note: json === undefined && note ? 'the return value could not be sent as JSON (' + joinParts(kinds, ', ') + ')' : note,
  }
}

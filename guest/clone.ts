/**
 * `structuredClone` inside the sandbox: what it returns belongs to the program's realm
 * (`structuredClone(d) instanceof Date` holds), which a container's Node's own does not give.
 *
 * Hand-written, not a library: the polyfills (`@ungap/structured-clone`) read the value through its
 * prototype (`value.forEach`, `constructor`), which a program may have patched; this reads built-ins by
 * their internal slots (`brandOf`) through captured functions.
 */
import { brandOf, functionText } from './inspect.js'
import {
  arrayBufferSlice,
  defineField,
  dateGetTime,
  domError,
  ErrorCtor,
  globalObject,
  MapCtor,
  mapEntries,
  mapGet,
  mapHas,
  mapSet,
  ObjectHasOwn,
  ObjectKeys,
  ObjectPrototypeToString,
  ReflectApply,
  SetCtor,
  setAdd,
  setValues,
  StringCtor,
  symbolToString,
  TypeErrorCtor,
  typedArrayTag,
} from './intrinsics.js'

export function structuredClone(value) {
  // biome-ignore lint/complexity/noArguments: a declared parameter keeps the function's length at 1, as the standard's
  if (arguments.length === 0) throw new TypeErrorCtor('The "value" argument must be specified')
  const memory = new MapCtor()
  function clone(v) {
    const t = typeof v
    if (t === 'symbol') throw domError('DataCloneError', ReflectApply(symbolToString, v, []) + ' could not be cloned.')
    if (t === 'function') throw domError('DataCloneError', functionText(v) + ' could not be cloned.')
    if (v === null || t !== 'object') return v
    if (ReflectApply(mapHas, memory, [v])) return ReflectApply(mapGet, memory, [v])
    const brand = brandOf(v)
    let out
    if (brand === 'Date') out = new Date(ReflectApply(dateGetTime, v, []))
    else if (brand === 'RegExp') out = new RegExp(v.source, v.flags)
    else if (brand === 'ArrayBuffer') out = ReflectApply(arrayBufferSlice, v, [0])
    else if (brand === 'TypedArray') {
      const C = globalObject[ReflectApply(typedArrayTag, v, [])]
      out = new C(ReflectApply(arrayBufferSlice, v.buffer, [v.byteOffset, v.byteOffset + v.byteLength]))
    } else if (brand === 'Promise') throw domError('DataCloneError', '#<Promise> could not be cloned.')
    else if (brand === 'Map') {
      out = new MapCtor()
      ReflectApply(mapSet, memory, [v, out])
      const pairs = mapEntries(v)
      for (let i = 0; i < pairs.length; i++) ReflectApply(mapSet, out, [clone(pairs[i][0]), clone(pairs[i][1])])
      return out
    } else if (brand === 'Set') {
      out = new SetCtor()
      ReflectApply(mapSet, memory, [v, out])
      const items = setValues(v)
      for (let i = 0; i < items.length; i++) ReflectApply(setAdd, out, [clone(items[i])])
      return out
    } else if (brand === 'Error') {
      const name = StringCtor(v.name)
      const C =
        name === 'TypeError' ||
        name === 'RangeError' ||
        name === 'SyntaxError' ||
        name === 'ReferenceError' ||
        name === 'EvalError' ||
        name === 'URIError'
          ? globalObject[name]
          : ErrorCtor
      out = new C(StringCtor(v.message))
      ReflectApply(mapSet, memory, [v, out])
      try {
        defineField(out, 'stack', v.stack, false)
      } catch (_) {}
      if (ObjectHasOwn(v, 'cause')) defineField(out, 'cause', clone(v.cause), false)
      return out
    } else if (brand === 'Array') {
      out = new Array(v.length)
      return ownInto(v, out)
    } else {
      const p = ObjectPrototypeToString(v)
      if (p === '[object WeakMap]' || p === '[object WeakSet]' || p === '[object WeakRef]')
        throw domError('DataCloneError', p.slice(8, -1) + ' could not be cloned.')
      out = {}
      return ownInto(v, out)
    }
    ReflectApply(mapSet, memory, [v, out])
    return out
  }
  /** `out` (an array or a plain object) gets a clone of each own enumerable property of `v`. */
  function ownInto(v, out) {
    ReflectApply(mapSet, memory, [v, out])
    const keys = ObjectKeys(v)
    for (let i = 0; i < keys.length; i++) defineField(out, keys[i], clone(v[keys[i]]))
    return out
  }
  return clone(value)
}

/**
 * Every intrinsic the guest uses, read once when the guest bundle is evaluated in a fresh realm: before any
 * of the program's text exists there. A program that later poisons `JSON`, `Promise.prototype.then`,
 * `Array.prototype` or `Function.prototype.call` cannot bend the bridge (vm2 CVE-2022-25893 was exactly
 * that: a bridge using a patchable prototype method). This module is the first the bundle evaluates.
 */

/** A property descriptor with no prototype: a setter a program planted on Object.prototype is never read. */
export type Descriptor = {
  __proto__: null
  value?: unknown
  writable?: boolean
  enumerable?: boolean
  configurable?: boolean
  get?: () => unknown
  set?: (v: unknown) => void
}
// biome-ignore lint/suspicious/noExplicitAny: the guest reads the program's values, which have no static type
export type Any = any

export const globalObject: Any = globalThis
// WebAssembly memory is not counted against an isolate's memory limit (it grows to gigabytes), so no
// program gets WebAssembly, in any backend. Removed here, before the program's script is evaluated.
delete globalObject.WebAssembly

export const JSONstringify = JSON.stringify
export const JSONparse = JSON.parse
export const ReflectApply: (fn: Any, self: Any, args: ArrayLike<unknown>) => Any = Reflect.apply
export const ReflectConstruct: (target: Any, args: ArrayLike<unknown>, newTarget?: Any) => Any = Reflect.construct
export const ReflectOwnKeys = Reflect.ownKeys
export const ObjectCreate: (proto: null) => Any = Object.create
export const ObjectFreeze = Object.freeze
export const ObjectKeys = Object.keys
export const ObjectHasOwn = Object.hasOwn
export const ObjectDefineProperty = Object.defineProperty as (o: Any, key: PropertyKey, desc: Descriptor) => Any
export const ObjectGetPrototypeOf = Object.getPrototypeOf
export const ObjectSetPrototypeOf = Object.setPrototypeOf
export const ObjectPrototype = Object.prototype
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor
const objectToString = Object.prototype.toString
export const ArrayIsArray = Array.isArray
export const StringCtor = String
export const NumberCtor = Number
export const NumberIsFinite = Number.isFinite
export const NumberIsNaN = Number.isNaN
export const NumberParseInt = Number.parseInt
export const NumberParseFloat = Number.parseFloat
const numberToString = Number.prototype.toString
export const ErrorCtor: Any = Error
export const ErrorCaptureStackTrace: Any = (Error as Any).captureStackTrace
export const RangeErrorCtor = RangeError
export const TypeErrorCtor = TypeError
export const PromiseCtor = Promise
export const promiseThen = Promise.prototype.then
export const promiseResolve: (v: unknown) => Promise<unknown> = Promise.resolve.bind(Promise)
export const stringSlice = String.prototype.slice
export const stringIndexOf = String.prototype.indexOf
export const stringToLowerCase = String.prototype.toLowerCase
export const StringFromCharCode = String.fromCharCode
export const StringFromCodePoint = String.fromCodePoint
// Uncurried once here (bind is read now, before any program): a call per character allocates nothing.
export const charCodeOf: (s: string, i: number) => number = Function.prototype.call.bind(String.prototype.charCodeAt) as Any
export const SetCtor = Set
export const setHas = Set.prototype.has
export const setAdd = Set.prototype.add
export const setDelete = Set.prototype.delete
export const setForEach = Set.prototype.forEach
export const MapCtor = Map
export const mapHas = Map.prototype.has
export const mapGet = Map.prototype.get
export const mapSet = Map.prototype.set
export const mapDelete = Map.prototype.delete
export const mapForEach = Map.prototype.forEach
export const mapClear = Map.prototype.clear
const getter = (o: object, key: PropertyKey): Any => ObjectGetOwnPropertyDescriptor(o, key)!.get
export const mapSizeGetter = getter(Map.prototype, 'size')
export const setSizeGetter = getter(Set.prototype, 'size')
export const dateGetTime = Date.prototype.getTime
export const dateToISOString = Date.prototype.toISOString
export const dateToString = Date.prototype.toString
export const DateCtor: Any = Date
export const DateNow = Date.now
export const RegExpPrototype = RegExp.prototype
export const regexpToString = RegExp.prototype.toString
export const regexpSourceGetter = getter(RegExp.prototype, 'source')
const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype)
export const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag)
export const typedArrayLength = getter(TypedArrayPrototype, 'length')
export const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer')
export const typedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset')
export const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength')
export const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength')
export const arrayBufferSlice = ArrayBuffer.prototype.slice
export const Uint8ArrayCtor = Uint8Array
export const DataViewCtor = DataView
export const functionToString = Function.prototype.toString
export const symbolToString = Symbol.prototype.toString
export const MathObject = Math
export const MathRandom = Math.random
export const MathImul = Math.imul
export const MathMin = Math.min
export const MathFloor = Math.floor
export const MathMax = Math.max
export const ProxyCtor = Proxy
export const SymbolIterator = Symbol.iterator
export const SymbolToStringTag = Symbol.toStringTag
// A container's realm has Node's timers; an isolate has none (its bridge passes host timers instead).
export const realmSetTimeout: Any = typeof globalObject.setTimeout === 'function' ? globalObject.setTimeout : undefined
export const realmClearTimeout: Any = typeof globalObject.clearTimeout === 'function' ? globalObject.clearTimeout : undefined

/**
 * The guest's own lists have no prototype, so appending by index can never reach a setter a program
 * planted on Array.prototype (or Object.prototype), and costs what a plain store costs.
 */
export function list(): Any[] {
  return ObjectSetPrototypeOf([], null)
}
/** Append to a list; an ordinary array (one a program will see) gets a defined own property instead. */
export function put(a: Any[], v: unknown): void {
  if (ObjectGetPrototypeOf(a) === null) a[a.length] = v
  else defineField(a, a.length, v)
}
/** An ordinary data property (writable, configurable; enumerable unless said), defined: no planted setter runs. */
export function defineField(o: Any, key: PropertyKey, value: unknown, enumerable = true): void {
  ObjectDefineProperty(o, key, { __proto__: null, value, writable: true, enumerable, configurable: true })
}
/** What `read` answers, or `fallback` when it throws (a program's getter, a revoked Proxy). */
export function attempt<T>(read: () => T, fallback: T): T {
  try {
    return read()
  } catch {
    return fallback
  }
}
/** A Map's [key, value] pairs, read through the captured forEach (a patched one is never called). */
export function mapEntries(m: Any): Any[] {
  const pairs = list()
  ReflectApply(mapForEach, m, [(value: unknown, key: unknown) => put(pairs, [key, value])])
  return pairs
}
/** A Set's values, likewise. */
export function setValues(s: Any): Any[] {
  const values = list()
  ReflectApply(setForEach, s, [(value: unknown) => put(values, value)])
  return values
}
export function NumberToString(n: number, radix: number): string {
  return ReflectApply(numberToString, n, [radix])
}
export function ObjectPrototypeToString(v: unknown): string {
  return ReflectApply(objectToString, v, [])
}
export function defineGlobal(name: string, value: unknown, writable: boolean): void {
  ObjectDefineProperty(globalObject, name, { __proto__: null, value, writable, enumerable: false, configurable: writable })
}
export function defineConstant(name: string, value: unknown, redefinable: boolean): void {
  ObjectDefineProperty(globalObject, name, { __proto__: null, value, writable: false, enumerable: false, configurable: redefinable })
}
/** An error with a DOMException's name (the realm may have no DOMException). */
export function domError(name: string, message: string): Error {
  const e = new ErrorCtor(message)
  defineField(e, 'name', name, false)
  return e
}

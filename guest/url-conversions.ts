/**
 * The WebIDL conversions `whatwg-url` uses (`any`, `DOMString`, `USVString`), in place of the
 * `webidl-conversions` package, which the bundle aliases here: that package reads
 * `SharedArrayBuffer.prototype` and `ArrayBuffer.prototype.resizable` as it loads, and the lockdown removes
 * both, so it cannot load in a sandbox. Same semantics as the package for these three.
 */
import { type Any, ReflectApply, StringCtor, TypeErrorCtor } from './intrinsics.js'

const stringToWellFormed: Any = (String.prototype as Any).toWellFormed

type Options = { context?: string; globals?: Any; treatNullAsEmptyString?: boolean }

export function any(value: unknown): unknown {
  return value
}

export function DOMString(value: unknown, options: Options = {}): string {
  if (options.treatNullAsEmptyString && value === null) return ''
  if (typeof value === 'symbol')
    throw new TypeErrorCtor(`${options.context ?? 'Value'} is a symbol, which cannot be converted to a string.`)
  return StringCtor(value)
}

export function USVString(value: unknown, options: Options = {}): string {
  return ReflectApply(stringToWellFormed, DOMString(value, options), [])
}

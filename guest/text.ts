/**
 * `TextEncoder` and `TextDecoder` (UTF-8 only: the one encoding a program's JSON tools speak), built inside
 * the sandbox from captured intrinsics. A realm's own (a container's Node) are built in the runner's main
 * realm, so what they return fails `instanceof Uint8Array` in the program's realm; these answer the same in
 * every backend.
 */
import { brandOf } from './inspect.js'
import {
  DataViewCtor,
  list,
  MathMin,
  put,
  RangeErrorCtor,
  ReflectApply,
  StringCtor,
  StringFromCodePoint,
  stringToLowerCase,
  TypeErrorCtor,
  Uint8ArrayCtor,
  charCodeOf,
} from './intrinsics.js'

export function utf8Encode(s) {
  s = StringCtor(s)
  const out = new Uint8ArrayCtor(s.length * 3)
  let n = 0
  for (let i = 0; i < s.length; i++) {
    let c = charCodeOf(s, i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = charCodeOf(s, i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
        i++
      } else c = 0xfffd
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd
    if (c < 0x80) out[n++] = c
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6)
      out[n++] = 0x80 | (c & 63)
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12)
      out[n++] = 0x80 | ((c >> 6) & 63)
      out[n++] = 0x80 | (c & 63)
    } else {
      out[n++] = 0xf0 | (c >> 18)
      out[n++] = 0x80 | ((c >> 12) & 63)
      out[n++] = 0x80 | ((c >> 6) & 63)
      out[n++] = 0x80 | (c & 63)
    }
  }
  return new Uint8ArrayCtor(out.buffer, 0, n).slice()
}
export function utf8Decode(bytes, fatal) {
  let out = ''
  const chunk = list()
  const flush = () => {
    if (chunk.length) {
      out += ReflectApply(StringFromCodePoint, undefined, chunk)
      chunk.length = 0
    }
  }
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]
    let cp = -1,
      need = 0,
      min = 0
    if (b < 0x80) {
      cp = b
      need = 0
    } else if (b >= 0xc2 && b <= 0xdf) {
      cp = b & 31
      need = 1
      min = 0x80
    } else if (b >= 0xe0 && b <= 0xef) {
      cp = b & 15
      need = 2
      min = 0x800
    } else if (b >= 0xf0 && b <= 0xf4) {
      cp = b & 7
      need = 3
      min = 0x10000
    }
    let j = 1
    for (; j <= need && i + j < bytes.length; j++) {
      const x = bytes[i + j]
      if ((x & 0xc0) !== 0x80) break
      cp = (cp << 6) | (x & 63)
    }
    const ok = cp >= 0 && j === need + 1 && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)
    if (!ok) {
      if (fatal) throw new TypeErrorCtor('The encoded data was not valid for encoding utf-8')
      put(chunk, 0xfffd)
      i += j // the bytes read so far become one U+FFFD
    } else {
      put(chunk, cp)
      i += need + 1
    }
    if (chunk.length >= 4096) flush()
  }
  flush()
  return out
}
function bytesOf(input) {
  if (input === undefined) return new Uint8ArrayCtor(0)
  const brand = brandOf(input)
  if (brand === 'ArrayBuffer') return new Uint8ArrayCtor(input)
  if (brand === 'TypedArray' || input instanceof DataViewCtor) return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength)
  throw new TypeErrorCtor('The "input" argument must be an ArrayBuffer or an ArrayBufferView')
}

export class TextEncoder {
  get encoding() {
    return 'utf-8'
  }
  encode(input) {
    return utf8Encode(input === undefined ? '' : input)
  }
  encodeInto(input, dest) {
    const bytes = utf8Encode(input)
    const n = MathMin(bytes.length, dest.length)
    let end = n
    while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--
    for (let i = 0; i < end; i++) dest[i] = bytes[i]
    return { read: utf8Decode(new Uint8ArrayCtor(bytes.buffer, 0, end), false).length, written: end }
  }
}
export class TextDecoder {
  #fatal: boolean
  #ignoreBOM: boolean
  constructor(label?, options?) {
    const l = label === undefined ? 'utf-8' : ReflectApply(stringToLowerCase, StringCtor(label), [])
    if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8')
      throw new RangeErrorCtor('The "' + StringCtor(label) + '" encoding is not supported (only utf-8 in this sandbox)')
    this.#fatal = !!options?.fatal
    this.#ignoreBOM = !!options?.ignoreBOM
  }
  get encoding() {
    return 'utf-8'
  }
  get fatal() {
    return this.#fatal
  }
  get ignoreBOM() {
    return this.#ignoreBOM
  }
  decode(input?) {
    let bytes = bytesOf(input)
    if (!this.#ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3)
    return utf8Decode(bytes, this.#fatal)
  }
}

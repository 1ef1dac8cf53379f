/** `btoa` and `atob`, as the HTML standard has them (a string of bytes in, a string of bytes out). */
import {
  NumberIsNaN,
  charCodeOf,
  domError,
  ReflectApply,
  StringCtor,
  StringFromCharCode,
  stringIndexOf,
  stringSlice,
  TypeErrorCtor,
} from './intrinsics.js'

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
export function btoa(data) {
  // biome-ignore lint/complexity/noArguments: a declared parameter keeps the function's length at 1, as the standard's
  if (arguments.length === 0) throw new TypeErrorCtor('The "data" argument must be specified')
  const s = StringCtor(data)
  let out = ''
  for (let i = 0; i < s.length; i += 3) {
    const a = charCodeOf(s, i),
      b = charCodeOf(s, i + 1),
      c = charCodeOf(s, i + 2)
    if (a > 255 || b > 255 || c > 255)
      throw domError(
        'InvalidCharacterError',
        'Invalid character: btoa takes a string of bytes (characters up to U+00FF); encode text first, e.g. btoa(String.fromCharCode(...new TextEncoder().encode(text)))',
      )
    const n = (a << 16) | ((NumberIsNaN(b) ? 0 : b) << 8) | (NumberIsNaN(c) ? 0 : c)
    out +=
      B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=')
  }
  return out
}
export function atob(data) {
  // biome-ignore lint/complexity/noArguments: a declared parameter keeps the function's length at 1, as the standard's
  if (arguments.length === 0) throw new TypeErrorCtor('The "data" argument must be specified')
  let s = ''
  const raw = StringCtor(data)
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\f' && ch !== '\r') s += ch
  }
  if (s.length % 4 === 0 && s.length >= 2 && s[s.length - 1] === '=')
    s = ReflectApply(stringSlice, s, [0, s[s.length - 2] === '=' ? -2 : -1])
  if (s.length % 4 === 1) throw domError('InvalidCharacterError', 'The string to be decoded is not correctly encoded.')
  let out = '',
    bits = 0,
    acc = 0
  for (let i = 0; i < s.length; i++) {
    const v = ReflectApply(stringIndexOf, B64, [s[i]])
    if (v < 0) throw domError('InvalidCharacterError', 'The string to be decoded is not correctly encoded.')
    acc = (acc << 6) | v
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out += StringFromCharCode((acc >> bits) & 255)
    }
  }
  return out
}

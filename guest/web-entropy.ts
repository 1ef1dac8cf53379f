/**
 * Web Crypto's randomness and the performance clock of a session realm that has them (a container's Node):
 * `getRandomValues` / `randomUUID` drawn from sfc32 seeded by each run's seed, `performance` read from the
 * session clock. Built in the program's realm, in closures: nothing of another realm a program could reach.
 */
import {
  type Any,
  MathImul,
  NumberToString,
  ObjectCreate,
  ObjectDefineProperty,
  globalObject,
  ObjectFreeze,
  ReflectApply,
  StringCtor,
  SetCtor,
  setHas,
  domError,
  typedArrayBuffer,
  typedArrayByteLength,
  typedArrayByteOffset,
  typedArrayTag,
  Uint8ArrayCtor,
} from './intrinsics.js'

export type WebEntropy = { crypto: Any; performance: Any; reseed(seed: string): void }

const INTEGER_ARRAYS = new SetCtor([
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
])
// The realm's own DOMException when it has one (a container's Node), so `instanceof DOMException` holds.
const DOMExceptionCtor: Any = typeof globalObject.DOMException === 'function' ? globalObject.DOMException : undefined
function webError(name: string, message: string): Error {
  return DOMExceptionCtor ? new DOMExceptionCtor(message, name) : domError(name, message)
}
/** Web Crypto's quota for one getRandomValues call. */
const MAX_RANDOM_BYTES = 65536

/** 128 bits of state from a string (cyrb128), for sfc32. */
function hashSeed(text: string): [number, number, number, number] {
  let h1 = 1779033703
  let h2 = 3144134277
  let h3 = 1013904242
  let h4 = 2773480762
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i)
    h1 = h2 ^ MathImul(h1 ^ k, 597399067)
    h2 = h3 ^ MathImul(h2 ^ k, 2869860233)
    h3 = h4 ^ MathImul(h3 ^ k, 951274213)
    h4 = h1 ^ MathImul(h4 ^ k, 2716044179)
  }
  h1 = MathImul(h3 ^ (h1 >>> 18), 597399067)
  h2 = MathImul(h4 ^ (h2 >>> 22), 2869860233)
  h3 = MathImul(h1 ^ (h3 >>> 17), 951274213)
  h4 = MathImul(h2 ^ (h4 >>> 19), 2716044179)
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0]
}

/** sfc32 over a state the caller reseeds. */
function sfc32(): { next32(): number; seed(s: [number, number, number, number]): void } {
  let a = 0
  let b = 0
  let c = 0
  let d = 0
  return {
    next32() {
      a >>>= 0
      b >>>= 0
      c >>>= 0
      d >>>= 0
      const t = (a + b) | 0
      a = b ^ (b >>> 9)
      b = (c + (c << 3)) | 0
      c = (c << 21) | (c >>> 11)
      d = (d + 1) | 0
      const r = (t + d) | 0
      c = (c + r) | 0
      return r >>> 0
    },
    seed(s) {
      ;[a, b, c, d] = s
    },
  }
}

function hex(byte: number): string {
  return (byte < 16 ? '0' : '') + NumberToString(byte, 16)
}

/** `now()`: the session clock as the program reads it. `realCrypto.subtle` stays the real one. */
export function createWebEntropy(realCrypto: Any, sessionNow: () => number): WebEntropy {
  const prng = sfc32()
  function fill(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i += 4) {
      let r = prng.next32()
      for (let j = i; j < i + 4 && j < bytes.length; j++) {
        bytes[j] = r & 0xff
        r >>>= 8
      }
    }
  }
  function getRandomValues(view: Any): Any {
    let tag: string | undefined
    try {
      tag = ReflectApply(typedArrayTag, view, [])
    } catch {
      tag = undefined
    }
    if (tag === undefined || !ReflectApply(setHas, INTEGER_ARRAYS, [tag])) {
      throw webError('TypeMismatchError', 'The data argument must be an integer-type TypedArray')
    }
    const length: number = ReflectApply(typedArrayByteLength, view, [])
    if (length > MAX_RANDOM_BYTES) {
      throw webError(
        'QuotaExceededError',
        `The ArrayBufferView's byte length (${length}) exceeds the number of bytes of entropy available via this API (${MAX_RANDOM_BYTES})`,
      )
    }
    fill(new Uint8ArrayCtor(ReflectApply(typedArrayBuffer, view, []), ReflectApply(typedArrayByteOffset, view, []), length))
    return view
  }
  function randomUUID(): string {
    const bytes = new Uint8ArrayCtor(16)
    fill(bytes)
    bytes[6] = (bytes[6]! & 0x0f) | 0x40
    bytes[8] = (bytes[8]! & 0x3f) | 0x80
    let s = ''
    for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + hex(bytes[i]!)
    return s
  }
  const crypto = ObjectCreate(null)
  crypto.getRandomValues = getRandomValues
  crypto.randomUUID = randomUUID
  // Key generation and digests stay the real ones (digests are deterministic anyway).
  crypto.subtle = realCrypto.subtle
  // Milliseconds since the realm first read its performance clock, from the session clock (whole ms).
  let origin: number | undefined
  const readOrigin = (): number => (origin === undefined ? (origin = sessionNow()) : origin)
  const performance = ObjectCreate(null)
  performance.now = function now() {
    const t = sessionNow()
    if (origin === undefined) origin = t
    return t - origin
  }
  performance.toJSON = function toJSON() {
    return { timeOrigin: readOrigin() }
  }
  ObjectDefineProperty(performance, 'timeOrigin', { __proto__: null, get: readOrigin, enumerable: true })
  return {
    crypto: ObjectFreeze(crypto),
    performance: ObjectFreeze(performance),
    reseed(seed) {
      prng.seed(hashSeed('crypto:' + StringCtor(seed)))
      for (let i = 0; i < 15; i++) prng.next32()
    },
  }
}

// A session realm's entropy beyond what the shared prelude replays (Math.random, Date.now / new Date()):
// Web Crypto's randomness (`crypto.randomUUID`, `crypto.getRandomValues`) is drawn from a PRNG seeded by each
// run's seed, and `performance.now()` / `performance.timeOrigin` read the session clock (the prelude's Date.now,
// which is recorded and replayed), so a replay of the session's runs rebuilds the same state. Everything is
// made per realm, in closures: no module state a program could reach.
//
// Not replayed (documented in README): `require('node:crypto')` (randomBytes, randomUUID, …), `crypto.subtle`'s
// key generation, `process.hrtime`, `process.uptime`, and `performance`'s marks and measures.
const MathImul = Math.imul
const ReflectApply = Reflect.apply
const StringCtor = String
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor
const ObjectFreeze = Object.freeze
const Uint8ArrayCtor = Uint8Array
const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype)
const typedArrayTag = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get
const typedArrayBuffer = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'buffer').get
const typedArrayByteOffset = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'byteOffset').get
const typedArrayByteLength = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength').get
const numberToString = Number.prototype.toString
const stringPadStart = String.prototype.padStart
const DOMExceptionCtor = DOMException
const INTEGER_ARRAYS = new Set([
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
const setHas = Set.prototype.has

/** 128 bits of state from a string (cyrb128), for sfc32. */
function hashSeed(text) {
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

/**
 * `now()`: the session clock as the program's realm reads it (its Date.now). Returns the realm's `crypto`
 * and `performance` for session runs, and `reseed(seed)`, called as each run starts.
 */
export function createSessionEntropy(realCrypto, now) {
  let a = 0
  let b = 0
  let c = 0
  let d = 0
  function next32() {
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
  }
  function fill(bytes) {
    for (let i = 0; i < bytes.length; i += 4) {
      let r = next32()
      for (let j = i; j < i + 4 && j < bytes.length; j++) {
        bytes[j] = r & 0xff
        r >>>= 8
      }
    }
  }
  function getRandomValues(view) {
    let tag
    try {
      tag = ReflectApply(typedArrayTag, view, [])
    } catch {
      tag = undefined
    }
    if (tag === undefined || !ReflectApply(setHas, INTEGER_ARRAYS, [tag])) {
      throw new DOMExceptionCtor('The data argument must be an integer-type TypedArray', 'TypeMismatchError')
    }
    const length = ReflectApply(typedArrayByteLength, view, [])
    if (length > 65536) {
      throw new DOMExceptionCtor(
        `The ArrayBufferView's byte length (${length}) exceeds the number of bytes of entropy available via this API (65536)`,
        'QuotaExceededError',
      )
    }
    fill(new Uint8ArrayCtor(ReflectApply(typedArrayBuffer, view, []), ReflectApply(typedArrayByteOffset, view, []), length))
    return view
  }
  function hex(byte) {
    return ReflectApply(stringPadStart, ReflectApply(numberToString, byte, [16]), [2, '0'])
  }
  function randomUUID() {
    const bytes = new Uint8ArrayCtor(16)
    fill(bytes)
    bytes[6] = (bytes[6] & 0x0f) | 0x40
    bytes[8] = (bytes[8] & 0x3f) | 0x80
    let s = ''
    for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + hex(bytes[i])
    return s
  }
  const crypto = ObjectFreeze({
    __proto__: null,
    getRandomValues,
    randomUUID,
    // Key generation and digests stay the real ones (digests are deterministic anyway).
    subtle: realCrypto?.subtle,
  })
  // Milliseconds since the realm first read its performance clock, from the session clock (whole ms).
  let origin
  const readOrigin = () => (origin === undefined ? (origin = now()) : origin)
  const performance = ObjectFreeze({
    __proto__: null,
    now() {
      const t = now()
      if (origin === undefined) origin = t
      return t - origin
    },
    get timeOrigin() {
      return readOrigin()
    },
    toJSON() {
      return { timeOrigin: readOrigin() }
    },
  })
  return {
    crypto,
    performance,
    reseed(seed) {
      ;[a, b, c, d] = hashSeed('crypto:' + StringCtor(seed))
      for (let i = 0; i < 15; i++) next32()
    },
  }
}

/**
 * Session runs' entropy, the same in every backend: `Math.random` is a PRNG seeded per run, and
 * `Date.now()` / `new Date()` / `Date()` answer a recorded list of times first (a replay), then the real
 * clock; every time read is recorded for the log. Where the realm has Web Crypto and a performance clock
 * (a container's Node), `crypto.getRandomValues` / `crypto.randomUUID` draw from a PRNG seeded by the run's
 * seed and `performance.now()` / `performance.timeOrigin` read the session clock. That is what makes a
 * session restorable by replay: the same program, the same tool results and the same entropy rebuild the
 * same realm.
 *
 * Installed in a realm the first time a session run asks for it (stateless runs keep the realm's own); each
 * run then sets the current state, so a function defined in an earlier run reads this run's clock.
 *
 * Not replayed (docs/security.md): `require('node:crypto')`, `crypto.subtle`'s key generation,
 * `process.hrtime`, `process.uptime`, and `performance`'s marks and measures.
 */
import {
  type Any,
  ArrayIsArray,
  charCodeOf,
  DateNow,
  defineField,
  defineGlobal,
  globalObject,
  list,
  MathImul,
  MathObject,
  MathRandom,
  NumberIsNaN,
  ObjectCreate,
  put,
  StringCtor,
} from './intrinsics.js'
import { installDate } from './held-clock.js'
import { MAX_CLOCK_READS } from './limits.js'
import { createWebEntropy, type WebEntropy } from './web-entropy.js'

let webEntropy: WebEntropy | undefined

let entropyState: Any = null,
  entropyInstalled = false
function seededRandom(seed) {
  // FNV-1a of the seed, then a Weyl sequence through an integer mixer: 2^32 values before it repeats.
  let state = 2166136261
  for (let i = 0; i < seed.length; i++) state = MathImul(state ^ charCodeOf(seed, i), 16777619)
  return function next() {
    state = (state + 0x9e3779b9) | 0
    let z = state
    z = MathImul(z ^ (z >>> 16), 0x85ebca6b)
    z = MathImul(z ^ (z >>> 13), 0xc2b2ae35)
    z ^= z >>> 16
    return (z >>> 0) / 4294967296
  }
}
// The times are run-length encoded: a negative entry -k repeats the time before it k more times.
function replayNext(st) {
  if (st.rep > 0) {
    st.rep--
    return st.prev
  }
  if (st.at >= st.replay.length) return undefined
  const x = st.replay[st.at++]
  if (x < 0) {
    st.rep = -x - 1
    return st.prev
  }
  st.prev = x
  return x
}
function entropyNow() {
  const st = entropyState
  if (st === null) return DateNow()
  const replayed = replayNext(st)
  const v = replayed === undefined ? DateNow() : replayed
  const read = st.read,
    n = read.length
  if (st.full) return v
  if (n > 0 && st.last === v) {
    if (read[n - 1] < 0) read[n - 1]--
    else if (n < MAX_CLOCK_READS) put(read, -1)
    else st.full = true
  } else if (n < MAX_CLOCK_READS) {
    put(read, v)
    st.last = v
  } else st.full = true
  return v
}
function installEntropy() {
  entropyInstalled = true
  function random() {
    const st = entropyState
    return st === null ? MathRandom() : st.random()
  }
  defineField(MathObject, 'random', random, false)
  installDate(entropyNow)
  // A realm with Web Crypto and a performance clock (a container's Node) gets them replayed too.
  const realCrypto = globalObject.crypto
  if (realCrypto !== null && typeof realCrypto === 'object' && typeof realCrypto.getRandomValues === 'function') {
    webEntropy = createWebEntropy(realCrypto, entropyNow)
    defineGlobal('crypto', webEntropy.crypto, true)
    defineGlobal('performance', webEntropy.performance, true)
  }
}
/** Sets this run's entropy; answers a function that returns the times the run read. */
export function useEntropy(entropy) {
  const st = ObjectCreate(null)
  st.random = seededRandom(StringCtor(entropy.seed))
  st.replay = list()
  const clock = entropy.clock
  if (ArrayIsArray(clock))
    for (let i = 0; i < clock.length; i++) if (typeof clock[i] === 'number' && !NumberIsNaN(clock[i])) put(st.replay, clock[i])
  st.at = 0
  st.rep = 0
  st.prev = 0
  st.last = undefined
  st.full = false
  st.read = list()
  entropyState = st
  if (!entropyInstalled) installEntropy()
  if (webEntropy !== undefined) webEntropy.reseed(StringCtor(entropy.seed))
  return function takeClock() {
    return st.read
  }
}

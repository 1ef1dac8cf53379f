/**
 * Session runs' entropy, part of the prelude (PRELUDE_SOURCE's setup): `Math.random` is a PRNG seeded per
 * run, and `Date.now()` / `new Date()` / `Date()` answer a recorded list of times first (a replay), then
 * the real clock; every time read is recorded for the log. That is what makes a session restorable by
 * replay: the same program, the same tool results and the same entropy rebuild the same realm.
 *
 * Installed in a realm the first time a session run asks for it (stateless runs keep the realm's own
 * Math.random and Date); each run then sets the current state, so a function defined in an earlier run
 * reads this run's clock. Uses intrinsics captured by the setup before any program ran.
 *
 * Evaluated inside the prelude's setup; it defines `useEntropy(entropy) => takeClock()`.
 */
/** Past this many recorded entries (run-length encoded) a run's times are not recorded; a replay then reads the real clock. */
export const MAX_CLOCK_READS = 10_000

export const ENTROPY_SOURCE = `
  const MathObject = Math, MathRandom = Math.random, MathImul = Math.imul;
  const DateCtor = Date, ReflectConstruct = Reflect.construct, dateToString = Date.prototype.toString;
  const MAX_CLOCK_READS = ${String(MAX_CLOCK_READS)};
  let entropyState = null, entropyInstalled = false;
  // A session realm's current run's tools: a tool function kept from an ended run calls through them.
  let currentRunTools = null;
  function seededRandom(seed) {
    // FNV-1a of the seed, then a Weyl sequence through an integer mixer: 2^32 values before it repeats.
    let state = 2166136261;
    for (let i = 0; i < seed.length; i++) state = MathImul(state ^ charCodeOf(seed, i), 16777619);
    return function next() {
      state = (state + 0x9e3779b9) | 0;
      let z = state;
      z = MathImul(z ^ (z >>> 16), 0x85ebca6b);
      z = MathImul(z ^ (z >>> 13), 0xc2b2ae35);
      z ^= z >>> 16;
      return (z >>> 0) / 4294967296;
    };
  }
  // The times are run-length encoded: a negative entry -k repeats the time before it k more times.
  function replayNext(st) {
    if (st.rep > 0) { st.rep--; return st.prev; }
    if (st.at >= st.replay.length) return undefined;
    const x = st.replay[st.at++];
    if (x < 0) { st.rep = -x - 1; return st.prev; }
    st.prev = x;
    return x;
  }
  function entropyNow() {
    const st = entropyState;
    if (st === null) return DateNow();
    const replayed = replayNext(st);
    const v = replayed === undefined ? DateNow() : replayed;
    const read = st.read, n = read.length;
    if (st.full) return v;
    if (n > 0 && st.last === v) {
      if (read[n - 1] < 0) read[n - 1]--;
      else if (n < MAX_CLOCK_READS) put(read, -1);
      else st.full = true;
    } else if (n < MAX_CLOCK_READS) { put(read, v); st.last = v; }
    else st.full = true;
    return v;
  }
  function installEntropy() {
    entropyInstalled = true;
    const hidden = { __proto__: null, writable: true, enumerable: false, configurable: true };
    hidden.value = function random() { const st = entropyState; return st === null ? MathRandom() : st.random(); };
    ObjectDefineProperty(MathObject, 'random', hidden);
    const nowDesc = { __proto__: null, writable: true, enumerable: false, configurable: true };
    nowDesc.value = function now() { return entropyNow(); };
    ObjectDefineProperty(DateCtor, 'now', nowDesc);
    const handler = ObjectCreate(null);
    handler.construct = function (target, args, newTarget) {
      const nt = newTarget === SessionDate ? target : newTarget;
      if (args.length === 0) return ReflectConstruct(target, [entropyNow()], nt);
      return ReflectConstruct(target, args, nt);
    };
    handler.apply = function () { return ReflectApply(dateToString, ReflectConstruct(DateCtor, [entropyNow()]), []); };
    const SessionDate = new ProxyCtor(DateCtor, handler);
    const ctorDesc = { __proto__: null, writable: true, enumerable: false, configurable: true, value: SessionDate };
    ObjectDefineProperty(DateCtor.prototype, 'constructor', ctorDesc);
    defineGlobal('Date', SessionDate, true);
  }
  /** Sets this run's entropy; answers a function that returns the times the run read. */
  function useEntropy(entropy) {
    const st = ObjectCreate(null);
    st.random = seededRandom(StringCtor(entropy.seed));
    st.replay = list();
    const clock = entropy.clock;
    if (ArrayIsArray(clock)) for (let i = 0; i < clock.length; i++) if (typeof clock[i] === 'number' && clock[i] === clock[i]) put(st.replay, clock[i]);
    st.at = 0; st.rep = 0; st.prev = 0; st.last = undefined; st.full = false;
    st.read = list();
    entropyState = st;
    if (!entropyInstalled) installEntropy();
    return function takeClock() { return st.read; };
  }
`

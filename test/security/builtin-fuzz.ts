/**
 * A program that finds every function a program can reach (walking globalThis, the intrinsics only
 * reachable through values — iterators, generators, async functions —, and the three parameters), then
 * calls the ones in `[from, to)` with hostile receivers and arguments, as a plain call and with `new`.
 * It returns `{ total, called, paths }`. Everything it uses is captured before the first call, so a call
 * that poisons a prototype cannot stop it from going on.
 */
export function fuzzProgram(from: number, to: number, listOnly = false): string {
  return `
const ReflectApply = Reflect.apply, ReflectConstruct = Reflect.construct, ReflectOwnKeys = Reflect.ownKeys;
const getDesc = Reflect.getOwnPropertyDescriptor, getProto = Reflect.getPrototypeOf, StringCtor = String;
const SetCtor = Set, setHas = Set.prototype.has, setAdd = Set.prototype.add, ProxyCtor = Proxy;
const seen = new SetCtor(), paths = [], fns = [], holders = [];
// The prelude builds these on first use (guest/globals.ts): touched first, the walk finds them as the
// values a program gets, their classes' methods included, not as the accessors that build them.
void [URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone];
function walk(obj, path, depth) {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return;
  if (ReflectApply(setHas, seen, [obj]) || depth > 5) return;
  ReflectApply(setAdd, seen, [obj]);
  const keys = ReflectOwnKeys(obj);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    let d;
    try { d = getDesc(obj, key); } catch { continue; }
    if (!d) continue;
    const name = path + '.' + StringCtor(typeof key === 'symbol' ? key.toString() : key);
    const parts = [['', d.value], ['#get', d.get], ['#set', d.set]];
    for (let j = 0; j < 3; j++) {
      const v = parts[j][1];
      if (typeof v === 'function' && !ReflectApply(setHas, seen, [v])) {
        paths[paths.length] = name + parts[j][0]; fns[fns.length] = v; holders[holders.length] = obj;
      }
      walk(v, name + parts[j][0], depth + 1);
    }
  }
  walk(getProto(obj), path + '.__proto__', depth + 1);
}
const roots = [
  ['globalThis', globalThis], ['tools', tools], ['ToolCallError', ToolCallError], ['console', console],
  ['generator', function* () {}], ['generatorObject', (function* () {})()], ['asyncFunction', async function () {}],
  ['asyncGenerator', async function* () {}], ['asyncGeneratorObject', (async function* () {})()],
  ['arrayIterator', [][Symbol.iterator]()], ['mapIterator', new Map().entries()], ['setIterator', new Set().values()],
  ['stringIterator', ''[Symbol.iterator]()], ['regexpStringIterator', 'a'.matchAll(/a/g)],
  ['arguments', (function () { return arguments })(1)], ['promise', Promise.resolve()],
  ['typedArray', new Uint8Array(4)], ['bigTypedArray', new BigInt64Array(2)], ['dataView', new DataView(new ArrayBuffer(8))],
  ['boundFunction', function () {}.bind(null)], ['error', new Error('e')], ['regexp', /a/g],
];
for (let i = 0; i < roots.length; i++) walk(roots[i][1], roots[i][0], 0);
if (${listOnly}) return { total: fns.length, called: 0, paths };

const thrower = new ProxyCtor({}, new ProxyCtor({}, { get() { return function () { throw new Error('trap') } } }));
const big = 'x\\u0301'.repeat(1 << 13);
const ia = new Int32Array(8);
const shared = typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(32)) : ia;
const hostileValue = { valueOf() { throw new Error('valueOf') }, toString() { throw new Error('toString') }, get length() { throw new Error('length') } };
const deepProxy = (function () { let p = {}; for (let i = 0; i < 10000; i++) p = new ProxyCtor(p, {}); return p })();
const ARGS = [
  [], [undefined], [null], [-1], [2 ** 32], [NaN], [-0], [1e308], [Symbol('s')], [10n], [big], ['en-u-ca-x'],
  [{}], [[]], [thrower], [deepProxy], [() => {}], [hostileValue], [0, 2 ** 31], ['', -1, {}], [{ length: 100000 }],
  [ia, 0, 0, 10], [shared, 0, 0, 10], [shared, 0, 0], [shared, 0, 1, 0], [big, big], [/(a+)+$/, 'a'.repeat(20)],
];
const RECEIVERS = [undefined, thrower, hostileValue];
function settle(r) {
  // A rejected promise left alone would end the run as an unhandled rejection.
  try { if (r !== null && (typeof r === 'object' || typeof r === 'function') && typeof r.then === 'function') ReflectApply(r.then, r, [undefined, function () {}]); } catch {}
}
let called = 0;
for (let i = ${from}; i < ${to} && i < fns.length; i++) {
  const fn = fns[i];
  const receivers = [holders[i], RECEIVERS[0], RECEIVERS[1], RECEIVERS[2]];
  for (let a = 0; a < ARGS.length; a++) {
    for (let r = 0; r < receivers.length; r++) {
      try { settle(ReflectApply(fn, receivers[r], ARGS[a])); } catch {}
    }
    try { settle(ReflectConstruct(fn, ARGS[a])); } catch {}
  }
  called++;
}
// Let whatever the calls queued (promise jobs, platform tasks) run before the run ends.
for (let t = 0; t < 20; t++) await null;
return { total: fns.length, called, paths: [] };
`
}

/**
 * The in-sandbox prelude: what a program sees (`tools`, `ToolCallError`, `console`, the safe standard
 * globals) and the code that runs it and serialises its outcome. The same text runs in every backend (an
 * isolate, a container's Node realm).
 *
 * Evaluating `PRELUDE_SOURCE` locks the realm down (WebAssembly removed), captures every intrinsic the
 * prelude uses, installs the standard globals, and yields a function
 *   (hostCall, hostLog, config, hostTimer?) => runProgram
 *   runProgram(programFn) => Promise<string /* JSON of a PreludeOutcome *\/>;  runProgram.fireTimer(id)
 * where
 *   hostCall(name, argsJson) => Promise<string /* JSON of a ToolResult *\/>
 *   hostLog(level, text) => void
 *   hostTimer(op: 'set' | 'clear', id, ms) => void   — a host timer that calls runProgram.fireTimer(id);
 *     without it the realm's own setTimeout is used (a container's Node)
 *   config = { toolNames: string[], maxOutputBytes: number }
 * Every backend evaluates the prelude before the program's script, so all of this happens before any of
 * the program's text can run.
 *
 * Why it looks the way it does: every intrinsic it uses is captured before the program runs, so a program
 * that poisons `JSON`, `Promise.prototype.then`, `Array.prototype` or `Function.prototype.call` cannot bend
 * the bridge (vm2 CVE-2022-25893 was exactly that: a bridge using a patchable prototype method).
 *
 * The run ends when the program's body has settled and nothing it started is still pending: tool calls it
 * did not await (`items.forEach(async …)`) and timeouts are waited for, like Node's event loop, and the
 * outcome says so in a note with the idiom to use instead; intervals are stopped.
 */

/** What the prelude reports back, as JSON text. */
import { GLOBALS_SOURCE } from './prelude-globals.js'
import { INSPECT_SOURCE } from './prelude-inspect.js'
import { VALUE_SOURCE } from './prelude-value.js'
import { ENTROPY_SOURCE } from './prelude-entropy.js'

export type PreludeOutcome =
  | { ok: true; valueJson?: string; valueNote?: string; droppedOutputBytes: number; logLines: number; clock?: number[] }
  | { ok: false; error: { name: string; message: string; stack?: string }; droppedOutputBytes: number; logLines: number; clock?: number[] }

/** Marker prefix of `argsJson` when the program's arguments could not be turned into JSON. */
export const INVALID_ARGS_PREFIX = '!'

export const PRELUDE_SOURCE = String.raw`(function codeactPreludeSetup() {
  'use strict';
  const globalObject = globalThis;
  // WebAssembly memory is not counted against an isolate's memory limit (it grows to gigabytes), so no
  // program gets WebAssembly, in any backend. Removed here, before the program's script is evaluated.
  delete globalObject.WebAssembly;
  const JSONstringify = JSON.stringify, JSONparse = JSON.parse;
  const ReflectApply = Reflect.apply, ReflectOwnKeys = Reflect.ownKeys;
  const ObjectCreate = Object.create, ObjectFreeze = Object.freeze, ObjectKeys = Object.keys, ObjectHasOwn = Object.hasOwn;
  const ObjectDefineProperty = Object.defineProperty, ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectPrototype = Object.prototype;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor, objectToString = Object.prototype.toString;
  const ArrayIsArray = Array.isArray, StringCtor = String, NumberCtor = Number, NumberIsFinite = Number.isFinite;
  const NumberParseInt = Number.parseInt, NumberParseFloat = Number.parseFloat, numberToString = Number.prototype.toString;
  const ErrorCtor = Error, ErrorCaptureStackTrace = Error.captureStackTrace, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
  const PromiseCtor = Promise, promiseThen = Promise.prototype.then;
  const stringSlice = String.prototype.slice, stringIndexOf = String.prototype.indexOf, stringCharCodeAt = String.prototype.charCodeAt;
  const StringFromCharCode = String.fromCharCode, StringFromCodePoint = String.fromCodePoint;
  // Uncurried once here (bind is read now, before any program): a call per character allocates nothing.
  const charCodeOf = Function.prototype.call.bind(String.prototype.charCodeAt);
  const SetCtor = Set, setHas = Set.prototype.has, setAdd = Set.prototype.add, setDelete = Set.prototype.delete, setForEach = Set.prototype.forEach;
  const MapCtor = Map, mapHas = Map.prototype.has, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete, mapForEach = Map.prototype.forEach, mapClear = Map.prototype.clear;
  const mapSizeGetter = ObjectGetOwnPropertyDescriptor(Map.prototype, 'size').get;
  const setSizeGetter = ObjectGetOwnPropertyDescriptor(Set.prototype, 'size').get;
  const dateGetTime = Date.prototype.getTime, dateToISOString = Date.prototype.toISOString, DateNow = Date.now;
  const RegExpPrototype = RegExp.prototype, regexpToString = RegExp.prototype.toString;
  const regexpSourceGetter = ObjectGetOwnPropertyDescriptor(RegExp.prototype, 'source').get;
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get;
  const typedArrayLength = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'length').get;
  const arrayBufferByteLength = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
  const Uint8ArrayCtor = Uint8Array, ArrayBufferCtor = ArrayBuffer, DataViewCtor = DataView;
  const functionToString = Function.prototype.toString, symbolToString = Symbol.prototype.toString;
  const MathMin = Math.min, MathMax = Math.max, MathFloor = Math.floor, ProxyCtor = Proxy;
  const promiseResolve = Promise.resolve.bind(Promise);
  // A container's realm has Node's timers; an isolate has none (the glue passes host timers instead).
  const realmSetTimeout = typeof setTimeout === 'function' ? setTimeout : undefined;
  const realmClearTimeout = typeof clearTimeout === 'function' ? clearTimeout : undefined;
  const INVALID = ${JSON.stringify(INVALID_ARGS_PREFIX)};

  /**
   * The prelude's own lists have no prototype, so appending by index can never reach a setter a program
   * planted on Array.prototype (or Object.prototype), and costs what a plain store costs.
   */
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  function list() { return ObjectSetPrototypeOf([], null); }
  /** Append to a list; an ordinary array (one a program will see) gets a defined own property instead. */
  function put(a, v) {
    if (ObjectGetPrototypeOf(a) === null) a[a.length] = v;
    else ObjectDefineProperty(a, a.length, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
  }
  function NumberToString(n, radix) { return ReflectApply(numberToString, n, [radix]); }
  function ObjectPrototypeToString(v) { return ReflectApply(objectToString, v, []); }
  function defineGlobal(name, value, writable) {
    ObjectDefineProperty(globalObject, name, { __proto__: null, value: value, writable: writable, enumerable: false, configurable: writable });
  }
  function defineConstant(name, value, redefinable) {
    ObjectDefineProperty(globalObject, name, { __proto__: null, value: value, writable: false, enumerable: false, configurable: redefinable });
  }
${INSPECT_SOURCE}
${VALUE_SOURCE}
${GLOBALS_SOURCE}
${ENTROPY_SOURCE}
  // One class per realm: a session's later runs catch what its earlier runs' calls threw.
  class ToolCallError extends ErrorCtor {
    constructor(toolName, code, message) {
      super(message);
      // Defined, not assigned: a program may have planted setters or getter-only properties for these
      // names on Object.prototype, and an assignment would run its code or throw.
      ObjectDefineProperty(this, 'name', { __proto__: null, value: 'ToolCallError', enumerable: false, configurable: true, writable: true });
      ObjectDefineProperty(this, 'toolName', { __proto__: null, value: toolName, enumerable: true, configurable: true, writable: true });
      ObjectDefineProperty(this, 'code', { __proto__: null, value: code, enumerable: true, configurable: true, writable: true });
    }
  }

  // Once per run; a session realm (config.session) calls it per run: globals stay, the run's state is new.
  return function codeactPrelude(hostCall, hostLog, config, hostTimer) {
  const toolNames = config.toolNames, maxOutputBytes = config.maxOutputBytes, inSession = config.session === true;
  const takeClock = config.entropy ? useEntropy(config.entropy) : undefined;

  // --- console: formatted in the sandbox, capped, forwarded as text --------------------------------
  let usedBytes = 0, droppedBytes = 0, cutMarked = false, logLines = 0;
  function byteLength(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : (c >= 0xd800 && c <= 0xdbff) ? (i++, 4) : 3;
    }
    return n;
  }
  function emit(level, args) {
    let text;
    try {
      text = formatLogArgs(args);
    } catch (e) {
      text = '[unprintable value]';
    }
    const size = byteLength(text) + 1;
    if (usedBytes + size > maxOutputBytes) {
      droppedBytes += size;
      if (!cutMarked) {
        cutMarked = true;
        logLines++;
        hostLog('warn', '[output cut: the console output cap of ' + maxOutputBytes + ' bytes was reached]');
      }
      return;
    }
    usedBytes += size;
    logLines++;
    hostLog(level, text);
  }
  const consoleObject = ObjectCreate(null);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    consoleObject[level] = function () { emit(level, arguments); };
  }
  consoleObject.trace = function () { emit('error', arguments); };
  consoleObject.dir = function (v) { emit('log', [v]); };
  consoleObject.table = function () { emit('log', arguments); };
  ObjectFreeze(consoleObject);

  // --- the run's pending work: calls it did not await, its timers ---------------------------------------
  let settled = false, completed = false, complete;
  let callsInFlight = 0, callsLate = 0, intervalsStopped = 0;
  const timers = new MapCtor();
  let timerSeq = 1, timeoutsPending = 0, idleArmed = false;
  const IDLE_TIMER = 0, MAX_TIMERS = 1000, MAX_DELAY = 2147483647;
  const realmHandles = new MapCtor();
  function armHost(id, ms) {
    if (hostTimer) { hostTimer('set', id, ms); return true; }
    if (realmSetTimeout) { ReflectApply(mapSet, realmHandles, [id, realmSetTimeout(function () { ReflectApply(mapDelete, realmHandles, [id]); fireTimer(id); }, ms)]); return true; }
    return false;
  }
  function disarmHost(id) {
    if (hostTimer) { hostTimer('clear', id, 0); return; }
    const h = ReflectApply(mapGet, realmHandles, [id]);
    if (h !== undefined) { ReflectApply(mapDelete, realmHandles, [id]); realmClearTimeout(h); }
  }
  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function');
    if (completed) return 0;
    if (ReflectApply(mapSizeGetter, timers, []) >= MAX_TIMERS) throw new RangeErrorCtor('too many timers pending (at most ' + MAX_TIMERS + ')');
    let delay = NumberCtor(ms);
    if (!(delay >= 1)) delay = repeat ? 1 : 0;
    if (delay > MAX_DELAY) delay = MAX_DELAY;
    delay = MathFloor(delay);
    const id = timerSeq++;
    const entry = ObjectCreate(null);
    entry.fn = fn; entry.args = args; entry.repeat = repeat; entry.delay = delay;
    ReflectApply(mapSet, timers, [id, entry]);
    if (!repeat) timeoutsPending++;
    if (!armHost(id, delay)) throw new TypeErrorCtor('timers are not available in this sandbox');
    return id;
  }
  function removeTimer(id) {
    const key = NumberCtor(id);
    const entry = ReflectApply(mapGet, timers, [key]);
    if (entry === undefined) return;
    ReflectApply(mapDelete, timers, [key]);
    if (!entry.repeat) timeoutsPending--;
    disarmHost(key);
    maybeIdle();
  }
  function fireTimer(id) {
    if (id === IDLE_TIMER) {
      idleArmed = false;
      if (settled && !completed && callsInFlight === 0 && timeoutsPending === 0) complete();
      return;
    }
    const entry = ReflectApply(mapGet, timers, [id]);
    if (entry === undefined || completed) return;
    if (entry.repeat) armHost(id, entry.delay);
    else { ReflectApply(mapDelete, timers, [id]); timeoutsPending--; }
    try { ReflectApply(entry.fn, undefined, entry.args); }
    catch (e) { fail(e); return; }
    maybeIdle();
  }
  function restArgs(args, from) {
    const out = list();
    for (let i = from; i < args.length; i++) put(out, args[i]);
    return out;
  }
  defineGlobal('setTimeout', function setTimeout(fn, ms) { return addTimer(fn, ms, restArgs(arguments, 2), false); }, true);
  defineGlobal('setInterval', function setInterval(fn, ms) { return addTimer(fn, ms, restArgs(arguments, 2), true); }, true);
  defineGlobal('clearTimeout', function clearTimeout(id) { removeTimer(id); }, true);
  defineGlobal('clearInterval', function clearInterval(id) { removeTimer(id); }, true);
  function stopIntervals() {
    ReflectApply(mapForEach, timers, [function (entry, id) {
      if (entry.repeat) { intervalsStopped++; ReflectApply(mapDelete, timers, [id]); disarmHost(id); }
    }]);
  }
  /** Settled and nothing pending: finish one macrotask later, so continuations of the last call run first. */
  function maybeIdle() {
    if (!settled || completed || callsInFlight > 0 || timeoutsPending > 0 || idleArmed) return;
    idleArmed = true;
    if (armHost(IDLE_TIMER, 0)) return;
    // No timer source at all: a few promise turns are the best we have.
    let turns = 0;
    const hop = function () {
      if (++turns < 32) { ReflectApply(promiseThen, promiseResolve(undefined), [hop]); return; }
      idleArmed = false;
      if (!settled || completed || callsInFlight > 0 || timeoutsPending > 0) return;
      complete();
    };
    hop();
  }
  function fail(e) {
    if (completed) return;
    completed = true;
    clearAllTimers();
    finishWith({ ok: false, error: describeError(e), droppedOutputBytes: droppedBytes, logLines: logLines });
  }
  function clearAllTimers() {
    ReflectApply(mapForEach, timers, [function (entry, id) { disarmHost(id); }]);
    ReflectApply(mapClear, timers, []);
    timeoutsPending = 0;
  }
  let finishWith = function () {};

  // --- tools: every call becomes JSON text to the host, every answer JSON text back --------------------
  function serializeArgs(args) {
    if (args === undefined) return '{}';
    try {
      const text = JSONstringify(args, function (k, v) {
        if (typeof v === 'bigint') throw new ErrorCtor('a BigInt (' + StringCtor(v) + 'n) cannot be sent as JSON');
        return v;
      });
      return text === undefined ? INVALID + 'arguments must be a JSON object, got ' + typeof args : text;
    } catch (e) {
      let why = 'not JSON';
      try { why = StringCtor(e && e.message); } catch (_) {}
      return INVALID + 'arguments are not JSON: ' + why;
    }
  }
  /** The program's frames where the call was made, so an uncaught failed call names its line. */
  // A few frames are enough to find the program's line, and capturing the default ten costs ~10x more.
  function callSite(fn) {
    const site = ObjectCreate(null);
    if (!ErrorCaptureStackTrace) return site;
    const d = ObjectGetOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit');
    const plain = d !== undefined && ObjectHasOwn(d, 'value') && d.writable;
    try {
      if (plain) ErrorCtor.stackTraceLimit = 4;
      ErrorCaptureStackTrace(site, fn);
    } catch (_) {
    } finally {
      if (plain) ErrorCtor.stackTraceLimit = d.value;
    }
    return site;
  }
  const MAX_SITES = 256;
  function failedCall(name, code, message, site) {
    const e = new ToolCallError(name, code, message);
    if (site === undefined) return e;
    // A program's own Error.prepareStackTrace decides what its stacks look like; then the stack is V8's.
    try {
      if (ErrorCtor.prepareStackTrace !== undefined) return e;
      const frames = site.stack;
      const at = typeof frames === 'string' ? ReflectApply(stringIndexOf, frames, ['\n']) : -1;
      const stack = 'ToolCallError: ' + message + (at >= 0 ? ReflectApply(stringSlice, frames, [at]) : '');
      ObjectDefineProperty(e, 'stack', { __proto__: null, value: stack, enumerable: false, configurable: true, writable: true });
    } catch (_) {}
    return e;
  }
  function makeTool(name) {
    const fn = function (args) {
      if (completed && currentRunTools !== null && currentRunTools !== tools) return currentRunTools[name](args);
      const argsJson = serializeArgs(args);
      // A captured stack is kept until the call settles: only for the first calls in flight, so a flood of
      // 100,000 unawaited calls does not hold 100,000 stacks (a failed call in a flood has no line).
      const site = callsInFlight < MAX_SITES ? callSite(fn) : undefined;
      return new PromiseCtor(function (resolve, reject) {
        if (completed) { reject(failedCall(name, 'ESTALE', 'this tool function belongs to an earlier run; call tools.' + name + ' from this run', site)); return; }
        let pending;
        try { pending = hostCall(name, argsJson); } catch (e) {
          reject(failedCall(name, 'EIO', 'the tool bridge failed', site));
          return;
        }
        callsInFlight++;
        if (settled) callsLate++;
        const done = function () { callsInFlight--; maybeIdle(); };
        ReflectApply(promiseThen, pending, [function (text) {
          done();
          let r;
          try { r = JSONparse(text); } catch (e) { reject(failedCall(name, 'EIO', 'unreadable tool result', site)); return; }
          if (r.ok) resolve(r.value);
          else reject(failedCall(name, StringCtor(r.error.code), StringCtor(r.error.message), site));
        }, function () { done(); reject(failedCall(name, 'EIO', 'the tool bridge failed', site)); }]);
      });
    };
    ObjectDefineProperty(fn, 'name', { __proto__: null, value: name });
    return ObjectFreeze(fn);
  }
  const known = ObjectCreate(null);
  for (let i = 0; i < toolNames.length; i++) known[toolNames[i]] = makeTool(toolNames[i]);
  ObjectFreeze(known);
  // Unknown names still reach the host, so a misspelled tool gets ENOSYS with the closest names, and is logged.
  const stubs = ObjectCreate(null);
  const tools = new ProxyCtor(known, {
    get(target, key) {
      if (typeof key !== 'string') return undefined;
      if (key in target) return target[key];
      if (key === 'then' || key === 'toJSON') return undefined;
      return stubs[key] || (stubs[key] = makeTool(key));
    },
  });
  if (inSession) currentRunTools = tools;

  // --- the run: await the program, wait for what it left running, serialise its value -----------------
  function describeError(e) {
    let name = 'Error', message = '', stack, code;
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        name = StringCtor(e.name || 'Error');
        message = StringCtor(e.message === undefined ? e : e.message);
        const s = e.stack;
        if (typeof s === 'string') stack = ReflectApply(stringSlice, s, [0, 4000]);
      } else {
        name = 'Thrown';
        message = inspect(e);
      }
    } catch (_) {
      message = '[unprintable error]';
    }
    return { name: ReflectApply(stringSlice, name, [0, 200]), message: ReflectApply(stringSlice, message, [0, 4000]), stack };
  }
  function pendingNotes(inFlightAtSettle) {
    const notes = list();
    const waited = inFlightAtSettle + callsLate;
    if (waited > 0) {
      put(notes, waited + ' tool call' + (waited === 1 ? ' was' : 's were') + ' still running when the program finished (not awaited, e.g. inside forEach(async …)); ' +
        'the run waited for ' + (waited === 1 ? 'it' : 'them') + '. Await each call: for (const x of items) await tools.f(x) — or all at once: await Promise.all(items.map((x) => tools.f(x))).');
    }
    if (intervalsStopped > 0) put(notes, 'a setInterval was still running when the program finished; it was stopped (clearInterval it when done).');
    return notes;
  }

  function runProgram(programFn) {
    return new PromiseCtor(function (resolve) {
      finishWith = function (o) { if (takeClock) ObjectDefineProperty(o, 'clock', { __proto__: null, value: takeClock(), enumerable: true }); resolve(JSONstringify(o)); };
      let p;
      try {
        // The program function takes no parameters (program/normalise.ts): these are its globals, as the
        // SDK declares them. console stays writable for a backend that routes its own console to it.
        defineConstant('tools', tools, inSession);
        defineConstant('ToolCallError', ToolCallError, inSession);
        defineGlobal('console', consoleObject, true);
        p = programFn(tools, ToolCallError, consoleObject);
      } catch (e) {
        fail(e);
        return;
      }
      const onValue = function (value) {
        if (completed) return;
        settled = true;
        const inFlightAtSettle = callsInFlight;
        stopIntervals();
        complete = function () {
          if (completed) return;
          completed = true;
          clearAllTimers();
          let s;
          try { s = valueToJson(value); } catch (_) { s = { json: undefined, note: 'the return value could not be reported' }; }
          const notes = pendingNotes(inFlightAtSettle);
          if (s.note) put(notes, s.note);
          finishWith({ ok: true, valueJson: s.json, valueNote: notes.length ? joinParts(notes, '\n') : undefined, droppedOutputBytes: droppedBytes, logLines: logLines });
        };
        maybeIdle();
      };
      // The program is an async function, so p is a native promise: the captured then reads its result
      // directly. Promise.resolve(p) would not: it looks up p.constructor and may call a patched p.then.
      try {
        ReflectApply(promiseThen, p, [onValue, fail]);
      } catch (_) {
        ReflectApply(promiseThen, promiseResolve(p), [onValue, fail]);
      }
    });
  }
  ObjectDefineProperty(runProgram, 'fireTimer', { __proto__: null, value: fireTimer });
  return runProgram;
  };
})()`

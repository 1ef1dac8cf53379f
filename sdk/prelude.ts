/**
 * The in-sandbox prelude: what a program sees (`tools`, `ToolCallError`, `console`) and the code that runs
 * it and serialises its outcome. The same text runs in every backend (an isolate, a container's Node).
 *
 * `PRELUDE_SOURCE` evaluates to a function
 *   (hostCall, hostLog, config) => (programFn) => Promise<string /* JSON of a PreludeOutcome *\/>
 * where
 *   hostCall(name, argsJson) => Promise<string /* JSON of a ToolResult *\/>
 *   hostLog(level, text) => void
 *   config = { toolNames: string[], maxOutputBytes: number }
 *
 * Why it looks the way it does: every intrinsic it uses is captured before the program runs, so a program
 * that poisons `JSON`, `Promise.prototype.then`, `Array.prototype` or `Function.prototype.call` cannot bend
 * the bridge (vm2 CVE-2022-25893 was exactly that: a bridge using a patchable prototype method).
 */

/** What the prelude reports back, as JSON text. */
export type PreludeOutcome =
  | { ok: true; valueJson?: string; valueNote?: string; droppedOutputBytes: number; logLines: number }
  | { ok: false; error: { name: string; message: string; stack?: string }; droppedOutputBytes: number; logLines: number }

/** Marker prefix of `argsJson` when the program's arguments could not be turned into JSON. */
export const INVALID_ARGS_PREFIX = '!'

export const PRELUDE_SOURCE = String.raw`(function codeactPrelude(hostCall, hostLog, config) {
  'use strict';
  const JSONstringify = JSON.stringify, JSONparse = JSON.parse;
  const ReflectApply = Reflect.apply, ObjectCreate = Object.create, ObjectFreeze = Object.freeze;
  const ObjectKeys = Object.keys, ObjectDefineProperty = Object.defineProperty, ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ArrayIsArray = Array.isArray, StringCtor = String, NumberIsFinite = Number.isFinite;
  const ErrorCtor = Error, PromiseCtor = Promise, promiseThen = Promise.prototype.then;
  const stringSlice = String.prototype.slice, arrayJoin = Array.prototype.join, arrayPush = Array.prototype.push;
  const SetCtor = Set, setHas = Set.prototype.has, setAdd = Set.prototype.add, setDelete = Set.prototype.delete;
  const MathMin = Math.min, ProxyCtor = Proxy, symbolToString = Symbol.prototype.toString;
  const promiseResolve = Promise.resolve.bind(Promise);
  const toolNames = config.toolNames, maxOutputBytes = config.maxOutputBytes;
  const INVALID = ${JSON.stringify(INVALID_ARGS_PREFIX)};

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
  function formatValue(v, depth, seen) {
    const t = typeof v;
    if (t === 'string') return depth === 0 ? v : JSONstringify(v);
    if (t === 'number' || t === 'boolean' || t === 'undefined' || v === null) return StringCtor(v);
    if (t === 'bigint') return StringCtor(v) + 'n';
    if (t === 'symbol') return ReflectApply(symbolToString, v, []);
    if (t === 'function') return '[Function' + (v.name ? ': ' + v.name : ' (anonymous)') + ']';
    if (ReflectApply(setHas, seen, [v])) return '[Circular]';
    if (v instanceof ErrorCtor) {
      const s = v.stack;
      return typeof s === 'string' && depth === 0 ? s : StringCtor(v.name) + ': ' + StringCtor(v.message);
    }
    if (depth > 4) return ArrayIsArray(v) ? '[Array]' : '[Object]';
    ReflectApply(setAdd, seen, [v]);
    try {
      const parts = [];
      if (ArrayIsArray(v)) {
        const n = MathMin(v.length, 100);
        for (let i = 0; i < n; i++) ReflectApply(arrayPush, parts, [formatValue(v[i], depth + 1, seen)]);
        if (v.length > n) ReflectApply(arrayPush, parts, ['... ' + (v.length - n) + ' more items']);
        return '[ ' + ReflectApply(arrayJoin, parts, [', ']) + ' ]';
      }
      const keys = ObjectKeys(v);
      const n = MathMin(keys.length, 100);
      for (let i = 0; i < n; i++) {
        const k = keys[i];
        ReflectApply(arrayPush, parts, [k + ': ' + formatValue(v[k], depth + 1, seen)]);
      }
      if (keys.length > n) ReflectApply(arrayPush, parts, ['... ' + (keys.length - n) + ' more keys']);
      return parts.length === 0 ? '{}' : '{ ' + ReflectApply(arrayJoin, parts, [', ']) + ' }';
    } finally {
      ReflectApply(setDelete, seen, [v]);
    }
  }
  function emit(level, args) {
    let text;
    try {
      const parts = [];
      for (let i = 0; i < args.length; i++) ReflectApply(arrayPush, parts, [formatValue(args[i], 0, new SetCtor())]);
      text = ReflectApply(arrayJoin, parts, [' ']);
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
  ObjectFreeze(consoleObject);

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
  function makeTool(name) {
    const fn = function (args) {
      const argsJson = serializeArgs(args);
      return new PromiseCtor(function (resolve, reject) {
        let pending;
        try { pending = hostCall(name, argsJson); } catch (e) {
          reject(new ToolCallError(name, 'EIO', 'the tool bridge failed'));
          return;
        }
        ReflectApply(promiseThen, pending, [function (text) {
          let r;
          try { r = JSONparse(text); } catch (e) { reject(new ToolCallError(name, 'EIO', 'unreadable tool result')); return; }
          if (r.ok) resolve(r.value);
          else reject(new ToolCallError(name, StringCtor(r.error.code), StringCtor(r.error.message)));
        }, function () { reject(new ToolCallError(name, 'EIO', 'the tool bridge failed')); }]);
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

  // --- the run: await the program, serialise its value inside the sandbox -------------------------
  function serializeValue(value) {
    if (value === undefined) return { valueJson: undefined, valueNote: undefined };
    let note;
    const seen = new SetCtor();
    try {
      const text = JSONstringify(value, function (k, v) {
        if (typeof v === 'bigint') { note = 'a BigInt was replaced by its string'; return StringCtor(v); }
        if (typeof v === 'function') { note = 'a function cannot be returned as JSON; it was dropped'; return undefined; }
        if (typeof v === 'symbol') { note = 'a symbol cannot be returned as JSON; it was dropped'; return undefined; }
        if (typeof v === 'number' && !NumberIsFinite(v)) { note = 'NaN or Infinity became null'; return v; }
        return v;
      });
      return { valueJson: text, valueNote: note };
    } catch (e) {
      let why = 'it is not JSON';
      try { why = StringCtor(e && e.message); } catch (_) {}
      if (why.indexOf('circular') >= 0 || why.indexOf('cyclic') >= 0) why = 'it has a cycle';
      return { valueJson: undefined, valueNote: 'the return value could not be reported: ' + why };
    }
  }
  function describeError(e) {
    let name = 'Error', message = '', stack;
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        name = StringCtor(e.name || 'Error');
        message = StringCtor(e.message === undefined ? e : e.message);
        const s = e.stack;
        if (typeof s === 'string') stack = ReflectApply(stringSlice, s, [0, 4000]);
      } else {
        name = 'Thrown';
        message = formatValue(e, 1, new SetCtor());
      }
    } catch (_) {
      message = '[unprintable error]';
    }
    return { name: ReflectApply(stringSlice, name, [0, 200]), message: ReflectApply(stringSlice, message, [0, 4000]), stack };
  }

  return function runProgram(programFn) {
    return new PromiseCtor(function (resolve) {
      let p;
      try {
        // The program function takes no parameters (sdk/program-text.ts): these are its globals, as the
        // SDK declares them. console stays writable for a backend that routes its own console to it.
        ObjectDefineProperty(globalThis, 'tools', { __proto__: null, value: tools, writable: false, enumerable: false, configurable: false });
        ObjectDefineProperty(globalThis, 'ToolCallError', { __proto__: null, value: ToolCallError, writable: false, enumerable: false, configurable: false });
        ObjectDefineProperty(globalThis, 'console', { __proto__: null, value: consoleObject, writable: true, enumerable: false, configurable: true });
        p = programFn(tools, ToolCallError, consoleObject);
      } catch (e) {
        resolve(JSONstringify({ ok: false, error: describeError(e), droppedOutputBytes: droppedBytes, logLines: logLines }));
        return;
      }
      const onValue = function (value) {
        const s = serializeValue(value);
        resolve(JSONstringify({ ok: true, valueJson: s.valueJson, valueNote: s.valueNote, droppedOutputBytes: droppedBytes, logLines: logLines }));
      };
      const onError = function (e) {
        resolve(JSONstringify({ ok: false, error: describeError(e), droppedOutputBytes: droppedBytes, logLines: logLines }));
      };
      // The program is an async function, so p is a native promise: the captured then reads its result
      // directly. Promise.resolve(p) would not: it looks up p.constructor and may call a patched p.then.
      try {
        ReflectApply(promiseThen, p, [onValue, onError]);
      } catch (_) {
        ReflectApply(promiseThen, promiseResolve(p), [onValue, onError]);
      }
    });
  };
})`

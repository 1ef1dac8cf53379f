// The program's own realm: a fresh vm context holding the prelude, a small glue and the program. It gets
// the Node the container's confinement makes safe (`require`, `process`, `Buffer`, timers …), but its
// intrinsics are its own, captured by the prelude and the glue before the program runs, so whatever the
// program patches, its tool calls and its outcome stay true and the runner's wire is untouched.
import { createRequire, isBuiltin } from 'node:module'
import vm from 'node:vm'
import { createSessionEntropy } from './entropy.mjs'

// What a program sees of Node, taken from this realm at load (before any program could replace them).
const NODE_GLOBALS = [
  'process',
  'Buffer',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'fetch',
  'structuredClone',
  'performance',
  'crypto',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'atob',
  'btoa',
  'Blob',
  'EventTarget',
  'Event',
  'MessageChannel',
  'MessagePort',
  'BroadcastChannel',
  'Headers',
  'Request',
  'Response',
  'FormData',
  'DOMException',
]
const nodeGlobals = {}
for (const name of NODE_GLOBALS) if (typeof globalThis[name] !== 'undefined') nodeGlobals[name] = globalThis[name]
const programRequire = createRequire(process.cwd() + '/')
const { Script, createContext, runInContext } = vm
const StringCtor = String
const stringStartsWith = String.prototype.startsWith
const ReflectApply = Reflect.apply
const PromiseReject = Promise.reject.bind(Promise)

/**
 * `import(x)` in the program (the normaliser turns `import fs from 'node:fs'` into an awaited one) loads
 * Node's own modules and nothing else: no file of the container (the runner's modules would hand out the
 * live wire), no data: or file: URL. Node's module loader keeps one instance per URL, so a program that could
 * import `/opt/codeact/wire.mjs` would get the very `send` the runner uses.
 */
function importBuiltin(specifier) {
  const name = StringCtor(specifier)
  const bare = ReflectApply(stringStartsWith, name, ['node:']) ? name.slice(5) : name
  if (!isBuiltin(name) || REFUSED_MODULES.has(bare)) {
    const e = new Error(
      `Cannot import "${name.slice(0, 200)}" in a program: only Node's built-in modules ("node:fs", "node:path", …) can be imported`,
    )
    e.code = 'ERR_UNSUPPORTED_PROGRAM_IMPORT'
    return PromiseReject(e)
  }
  return import(ReflectApply(stringStartsWith, name, ['node:']) ? name : 'node:' + name)
}
/**
 * The inspector attaches to this very process: `Runtime.evaluate` there runs in the runner's own realm, past
 * everything the glue captured. Refused to `import` and to `require` (the container stays the boundary).
 */
const REFUSED_MODULES = new Set(['inspector', 'inspector/promises'])
function guardedRequire(id) {
  const name = StringCtor(id)
  const bare = ReflectApply(stringStartsWith, name, ['node:']) ? name.slice(5) : name
  if (REFUSED_MODULES.has(bare)) {
    const e = new Error(`Cannot require "${name}" in a program: the inspector is not available`)
    e.code = 'ERR_UNSUPPORTED_PROGRAM_IMPORT'
    throw e
  }
  return programRequire(id)
}
for (const key of Object.keys(programRequire)) guardedRequire[key] = programRequire[key]

// Runs in the program's realm, before the program. It keeps the runner's callbacks in its closure and
// gives each promise it hands out an own `constructor` of undefined, so `then` on it uses the realm's true
// Promise whatever the program does to `Promise[Symbol.species]` or `Promise.prototype.constructor`.
const GLUE = `(function codeactGlue(prelude, send, log, configJson, arm) {
  'use strict';
  const ReflectApply = Reflect.apply, PromiseCtor = Promise, promiseThen = Promise.prototype.then;
  const MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
  const ObjectDefineProperty = Object.defineProperty, ObjectCreate = Object.create, JSONparse = JSON.parse;
  const global = globalThis;
  function plain(p) {
    ObjectDefineProperty(p, 'constructor', { __proto__: null, value: undefined });
    return p;
  }
  // Calls beyond these are refused here (EAGAIN, as in the isolate) instead of queued: a program firing
  // calls without awaiting them must not fill the container's memory with messages the host reads slowly.
  const MAX_CALLS = 4096, MAX_ARGS_CHARS = 16 * 1024 * 1024;
  const TOO_MANY = '{"ok":false,"error":{"code":"EAGAIN","message":"too many tool calls in flight (at most 4096 calls or 16 Mi characters of arguments)"}}';
  const pending = new MapCtor();
  let nextCallId = 1, callsInFlight = 0, argsInFlight = 0;
  function hostCall(name, argsJson) {
    return plain(new PromiseCtor(function (resolve) {
      if (callsInFlight >= MAX_CALLS || argsInFlight + argsJson.length > MAX_ARGS_CHARS) return resolve(TOO_MANY);
      const id = nextCallId++;
      const entry = ObjectCreate(null);
      entry.resolve = resolve;
      entry.size = argsJson.length;
      callsInFlight++;
      argsInFlight += entry.size;
      ReflectApply(mapSet, pending, [id, entry]);
      send(id, name, argsJson);
    }));
  }
  function hostLog(level, text) { log(level, text); }
  // The prelude's timers (its end-of-run idle check, the program's setTimeout) on the runner's clock
  // (arm, below): a 0 ms one is the next macrotask, not Node's 1 ms minimum under every run.
  const disarms = new MapCtor();
  let fireTimer;
  function hostTimer(op, id, ms) {
    const off = ReflectApply(mapGet, disarms, [id]);
    if (off !== undefined) { ReflectApply(mapDelete, disarms, [id]); off(); }
    if (op !== 'set') return;
    ReflectApply(mapSet, disarms, [id, arm(function () { ReflectApply(mapDelete, disarms, [id]); fireTimer(id); }, ms)]);
  }
  const runProgram = prelude(hostCall, hostLog, JSONparse(configJson), hostTimer);
  fireTimer = runProgram.fireTimer;
  const control = ObjectCreate(null);
  control.start = function (programFn, onConsole, done) {
    const wrapped = function (tools, ToolCallError, console) {
      ObjectDefineProperty(global, 'console', { __proto__: null, value: console, writable: true, configurable: true, enumerable: false });
      onConsole(console);
      return programFn(tools, ToolCallError, console);
    };
    ReflectApply(promiseThen, plain(runProgram(wrapped)), [done, done]);
  };
  control.deliver = function (id, text) {
    const entry = ReflectApply(mapGet, pending, [id]);
    if (entry === undefined) return;
    ReflectApply(mapDelete, pending, [id]);
    callsInFlight--;
    argsInFlight -= entry.size;
    entry.resolve(text);
  };
  return control;
})`

// Node's timers as loaded, for the glue's host timers: delay 0 is the next macrotask (setImmediate), as
// in the isolate backend; returns the timer's cancel.
const setTimeoutFn = setTimeout
const clearTimeoutFn = clearTimeout
const setImmediateFn = setImmediate
const clearImmediateFn = clearImmediate
function arm(fn, ms) {
  if (!(ms >= 1)) {
    const immediate = setImmediateFn(fn)
    return () => clearImmediateFn(immediate)
  }
  const timeout = setTimeoutFn(fn, ms)
  return () => clearTimeoutFn(timeout)
}

/**
 * Runs a fixed program of our own (a tool call, a console line, a returned object) through the prelude in
 * a throwaway realm, on no wire. V8 compiles functions lazily, on their first call, and keeps the bytecode
 * per script source for the whole process: so the program's realm, made next from the same prelude text,
 * starts with the prelude's run path compiled instead of compiling it on the program's clock. Nothing of
 * the throwaway realm is reachable from the program's: it is another context, dropped here.
 */
const WARM_UP_PROGRAM =
  '(async function (tools, ToolCallError, console) {"use strict";\n' +
  "const r = await tools.noop({ a: [1, 'b'] }); console.log('warm', r, [1, { b: 2 }]); try { JSON.parse('{') } catch (e) { console.error(e) }\n" +
  "return { r, n: 1, s: 'x', xs: [1, 2, 3] }\n})"
export function warmUp(preludeSource) {
  const realm = createRealm(preludeSource)
  let bridge
  const send = (id) => queueMicrotask(() => bridge.deliver(id, '{"ok":true,"value":null}'))
  bridge = realm.bind(send, () => {}, JSON.stringify({ toolNames: ['noop'], maxOutputBytes: 1 << 20 }))
  bridge.start(
    WARM_UP_PROGRAM,
    () => {},
    () => {},
  )
}

/**
 * A new realm with the prelude compiled in it; `start` then runs one program there — or, in a session's
 * container, each of the session's programs in turn (bind once per run), so its globals persist.
 */
export function createRealm(preludeSource) {
  const sandbox = { ...nodeGlobals, require: guardedRequire }
  const context = createContext(sandbox, { name: 'program' })
  runInContext('globalThis.global = globalThis', context)
  const prelude = runInContext(preludeSource, context, { filename: 'prelude.js' })
  const glue = runInContext(GLUE, context, { filename: 'codeact-glue.js' })
  // The session clock as the program reads it: whatever Date.now the prelude installed for the run.
  const now = runInContext('(function sessionNow() { return Date.now() })', context)
  let entropy
  return {
    /**
     * Bind the bridge: `send(id, name, argsJson)` issues a call, `log(level, text)` a console line.
     * `seed` (session runs): the realm's crypto randomness is reseeded from it and its performance clock is
     * the session clock (entropy.mjs). Returns `deliver(id, resultJson)` for the host's answers and
     * `start(js, onConsole, done)`, which compiles and runs the program and calls `done(outcomeJson)` once
     * (a SyntaxError included).
     */
    bind(send, log, config, seed) {
      if (typeof seed === 'string') {
        if (entropy === undefined) {
          entropy = createSessionEntropy(nodeGlobals.crypto, now)
          sandbox.crypto = entropy.crypto
          sandbox.performance = entropy.performance
        }
        entropy.reseed(seed)
      }
      const control = glue(prelude, send, log, config, arm)
      return {
        deliver: control.deliver,
        start(js, onConsole, done) {
          let programFn
          try {
            programFn = new Script(js, { filename: 'program.js', importModuleDynamically: importBuiltin }).runInContext(context)
          } catch (e) {
            programFn = () => {
              throw e
            }
          }
          control.start(programFn, onConsole, done)
        },
      }
    },
  }
}

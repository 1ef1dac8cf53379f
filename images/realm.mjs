// The program's own realm: a fresh vm context holding the prelude, a small glue and the program. It gets
// the Node the container's confinement makes safe (`require`, `process`, `Buffer`, timers …), but its
// intrinsics are its own, captured by the prelude and the glue before the program runs, so whatever the
// program patches, its tool calls and its outcome stay true and the runner's wire is untouched.
import { createRequire } from 'node:module'
import vm from 'node:vm'

// What a program sees of Node, taken from this realm at load (before any program could replace them).
const NODE_GLOBALS = [
  'process', 'Buffer', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate',
  'queueMicrotask', 'fetch', 'structuredClone', 'performance', 'crypto', 'URL', 'URLSearchParams', 'TextEncoder',
  'TextDecoder', 'AbortController', 'AbortSignal', 'atob', 'btoa', 'Blob', 'EventTarget', 'Event', 'MessageChannel',
  'MessagePort', 'BroadcastChannel', 'Headers', 'Request', 'Response', 'FormData', 'DOMException',
]
const nodeGlobals = {}
for (const name of NODE_GLOBALS) if (typeof globalThis[name] !== 'undefined') nodeGlobals[name] = globalThis[name]
const programRequire = createRequire(process.cwd() + '/')
const { Script, createContext, runInContext } = vm
const importDefault = vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER

// Runs in the program's realm, before the program. It keeps the runner's callbacks in its closure and
// gives each promise it hands out an own `constructor` of undefined, so `then` on it uses the realm's true
// Promise whatever the program does to `Promise[Symbol.species]` or `Promise.prototype.constructor`.
const GLUE = `(function codeactGlue(prelude, send, log, configJson) {
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
  const runProgram = prelude(hostCall, hostLog, JSONparse(configJson));
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

/** A new realm with the prelude compiled in it; `start` then runs one program there. */
export function createRealm(preludeSource) {
  const sandbox = { ...nodeGlobals, require: programRequire }
  const context = createContext(sandbox, { name: 'program' })
  runInContext('globalThis.global = globalThis', context)
  const prelude = runInContext(preludeSource, context, { filename: 'prelude.js' })
  const glue = runInContext(GLUE, context, { filename: 'codeact-glue.js' })
  return {
    /**
     * Bind the bridge: `send(id, name, argsJson)` issues a call, `log(level, text)` a console line.
     * Returns `deliver(id, resultJson)` for the host's answers and `start(js, onConsole, done)`, which
     * compiles and runs the program and calls `done(outcomeJson)` once (a SyntaxError included).
     */
    bind(send, log, config) {
      const control = glue(prelude, send, log, config)
      return {
        deliver: control.deliver,
        start(js, onConsole, done) {
          let programFn
          try {
            programFn = new Script(js, { filename: 'program.js', importModuleDynamically: importDefault }).runInContext(context)
          } catch (e) {
            programFn = () => { throw e }
          }
          control.start(programFn, onConsole, done)
        },
      }
    },
  }
}

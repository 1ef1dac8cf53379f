/**
 * The program's own realm inside the container's runner: a fresh vm context holding the guest's container
 * bundle (guest/bridge/container.ts, sent by the host with `prepare`) and the program. It gets the Node the
 * container's confinement makes safe (`require`, `process`, `Buffer`, timers …), but its intrinsics are its
 * own, captured by the guest before the program runs, so whatever the program patches, its tool calls and
 * its outcome stay true and the runner's wire is untouched.
 *
 * Runs inside the container (the image carries it as realm.mjs beside the runner): Node built-ins only.
 */
import { createRequire, isBuiltin } from 'node:module'
import vm from 'node:vm'
import { RUNNER_NODE_GLOBALS } from '../../../vocabulary/runner-globals.js'
import { urlRecord, urlSet } from '../../url-host.js'

type Send = (id: number, name: string, argsJson: string) => void
type Log = (level: string, text: string) => void
type Control = {
  start(
    programFn: unknown,
    onConsole: (console: Record<string, (...args: unknown[]) => void>) => void,
    done: (outcomeJson: string) => void,
  ): void
  deliver(id: number, text: string): void
}
type GuestBridge = (
  send: Send,
  log: Log,
  configJson: string,
  arm: (fn: () => void, ms: number) => () => void,
  record: typeof urlRecord,
  set: typeof urlSet,
) => Control

/** What the runner holds of one run: `deliver` answers a call, `start` runs the program (once). */
export interface BoundRealm {
  deliver(id: unknown, text: string): void
  start(js: string, onConsole: (console: Record<string, (...args: unknown[]) => void>) => void, done: (outcome: unknown) => void): void
}
export interface ProgramRealm {
  /** `seed` is the session's (config.entropy carries it to the guest, which replays it); kept for the runner's call. */
  bind(send: Send, log: Log, config: string, seed?: string): BoundRealm
}

// What a program sees of Node (the list the checker declares too), taken from this realm at load (before any
// program could replace them).
const realmGlobals = globalThis as unknown as Record<string, unknown>
const nodeGlobals: Record<string, unknown> = {}
for (const name of RUNNER_NODE_GLOBALS) if (typeof realmGlobals[name] !== 'undefined') nodeGlobals[name] = realmGlobals[name]
const programRequire = createRequire(process.cwd() + '/')
const { Script, createContext, runInContext } = vm
const StringCtor = String
const stringStartsWith = String.prototype.startsWith
const stringSlice = String.prototype.slice
const ReflectApply = Reflect.apply
const PromiseReject = Promise.reject.bind(Promise)

/**
 * The inspector attaches to this very process: `Runtime.evaluate` there runs in the runner's own realm, past
 * everything the guest captured. Refused to `import` and to `require` (the container stays the boundary).
 */
const REFUSED_MODULES = new Set(['inspector', 'inspector/promises'])

function bareName(name: string): string {
  return ReflectApply(stringStartsWith, name, ['node:']) ? ReflectApply(stringSlice, name, [5]) : name
}

function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_UNSUPPORTED_PROGRAM_IMPORT' })
}

/**
 * `import(x)` in the program (the normaliser turns `import fs from 'node:fs'` into an awaited one) loads
 * Node's own modules and nothing else: no file of the container (the runner's modules would hand out the
 * live wire), no data: or file: URL. Node's module loader keeps one instance per URL, so a program that could
 * import the runner's wire module would get the very `send` the runner uses.
 */
function importBuiltin(specifier: unknown): Promise<vm.Module> {
  const name = StringCtor(specifier)
  if (!isBuiltin(name) || REFUSED_MODULES.has(bareName(name))) {
    return PromiseReject(
      refusal(
        `Cannot import "${name.slice(0, 200)}" in a program: only Node's built-in modules ("node:fs", "node:path", …) can be imported`,
      ),
    )
  }
  return import(ReflectApply(stringStartsWith, name, ['node:']) ? name : 'node:' + name)
}

function guardedRequire(id: string): unknown {
  const name = StringCtor(id)
  if (REFUSED_MODULES.has(bareName(name))) throw refusal(`Cannot require "${name}" in a program: the inspector is not available`)
  return programRequire(id)
}
for (const key of Object.keys(programRequire))
  (guardedRequire as unknown as Record<string, unknown>)[key] = (programRequire as unknown as Record<string, unknown>)[key]

// Node's timers as loaded, for the guest's host timers: delay 0 is the next macrotask (setImmediate), as
// in the isolate backend; returns the timer's cancel.
const setTimeoutFn = setTimeout
const clearTimeoutFn = clearTimeout
const setImmediateFn = setImmediate
const clearImmediateFn = clearImmediate
function arm(fn: () => void, ms: number): () => void {
  if (!(ms >= 1)) {
    const immediate = setImmediateFn(fn)
    return () => clearImmediateFn(immediate)
  }
  const timeout = setTimeoutFn(fn, ms)
  return () => clearTimeoutFn(timeout)
}

/**
 * Runs a fixed program of our own (a tool call, a console line, a returned object) through the guest in
 * a throwaway realm, on no wire. V8 compiles functions lazily, on their first call, and keeps the bytecode
 * per script source for the whole process: so the program's realm, made next from the same guest text,
 * starts with the guest's run path compiled instead of compiling it on the program's clock. Nothing of
 * the throwaway realm is reachable from the program's: it is another context, dropped here.
 */
const WARM_UP_PROGRAM =
  '(async function (tools, ToolCallError, console) {"use strict";\n' +
  "const r = await tools.noop({ a: [1, 'b'] }); console.log('warm', r, [1, { b: 2 }]); try { JSON.parse('{') } catch (e) { console.error(e) }\n" +
  "return { r, n: 1, s: 'x', xs: [1, 2, 3] }\n})"
export function warmUp(guestSource: string): void {
  const realm = createRealm(guestSource)
  let bridge: BoundRealm | undefined
  const send: Send = (id) => queueMicrotask(() => bridge?.deliver(id, '{"ok":true,"value":null}'))
  bridge = realm.bind(send, () => {}, JSON.stringify({ toolNames: ['noop'], maxOutputBytes: 1 << 20 }))
  bridge.start(
    WARM_UP_PROGRAM,
    () => {},
    () => {},
  )
}

/**
 * A new realm with the guest evaluated in it; `start` then runs one program there — or, in a session's
 * container, each of the session's programs in turn (bind once per run), so its globals persist.
 */
export function createRealm(guestSource: string): ProgramRealm {
  const sandbox = { ...nodeGlobals, require: guardedRequire }
  const context = createContext(sandbox, { name: 'program' })
  runInContext('globalThis.global = globalThis', context)
  // The file name the host's stack filter knows (runtime/compile.ts).
  const bridge = runInContext(guestSource, context, { filename: 'prelude.js' }) as GuestBridge
  return {
    /**
     * Bind the bridge: `send(id, name, argsJson)` issues a call, `log(level, text)` a console line. Returns
     * `deliver(id, resultJson)` for the host's answers and `start(js, onConsole, done)`, which compiles
     * and runs the program and calls `done(outcomeJson)` once (a SyntaxError included).
     */
    bind(send, log, config) {
      // The program's URL is parsed by this Node's (../../url-host.ts): strings in and out, never a URL object.
      const control = bridge(send, log, config, arm, urlRecord, urlSet)
      return {
        deliver: control.deliver,
        start(js, onConsole, done) {
          let script: InstanceType<typeof Script>
          try {
            script = new Script(js, { filename: 'program.js', importModuleDynamically: importBuiltin as never })
          } catch (e) {
            // JS that does not parse is a compile error, as the isolate answers it: nothing of it ran.
            return done(compileOutcome(e))
          }
          let programFn: unknown
          try {
            programFn = script.runInContext(context)
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

/** The outcome of a program whose JS does not parse (the wire's `compile` mark: the host answers kind `compile`). */
function compileOutcome(e: unknown): string {
  const err = (typeof e === 'object' && e !== null ? e : {}) as { name?: unknown; message?: unknown; stack?: unknown }
  const name = typeof err.name === 'string' ? err.name : 'SyntaxError'
  const message = typeof err.message === 'string' ? err.message : String(e)
  const stack = typeof err.stack === 'string' ? err.stack.slice(0, 4000) : undefined
  const error = { name, message: message.slice(0, 4000), compile: true, ...(stack !== undefined ? { stack } : {}) }
  return JSON.stringify({ ok: false, error, droppedOutputBytes: 0 })
}

/**
 * The safe standard globals a program gets in every backend: `queueMicrotask` now, and the web globals on
 * first use. None of them reaches the network or the host; they cost nothing but the program's own CPU and
 * memory, which the run's limits bound. (The timers are the run's own, run.ts: they need its bookkeeping.)
 *
 * They replace a realm's own (a container's Node) too: Node's are built in the runner's main realm, so what
 * they return fails `instanceof` in the program's realm (`structuredClone(d) instanceof Date` was false),
 * and every backend should answer the same.
 *
 * To add a global: one entry in STANDARD_GLOBALS (built on first use) or a defineGlobal call (now).
 */
import { atob, btoa } from './base64.js'
import { structuredClone } from './clone.js'
import {
  type Any,
  defineGlobal,
  globalObject,
  ObjectDefineProperty,
  ObjectKeys,
  promiseResolve,
  promiseThen,
  ReflectApply,
  TypeErrorCtor,
} from './intrinsics.js'
import { TextDecoder, TextEncoder } from './text.js'
import { urlClasses } from './url.js'

/**
 * Each name, and what builds its value. Built on first use: evaluating them in each fresh context was half
 * of the prelude's evaluation, and most programs touch none of them. Everything they use was captured
 * before the program ran, so building them after a program poisoned prototypes is the same as before
 * (URL's parsing is the host's, through the functions the bridge handed to url.ts before the program).
 */
const STANDARD_GLOBALS: Record<string, () => unknown> = {
  __proto__: null as Any,
  TextEncoder: () => TextEncoder,
  TextDecoder: () => TextDecoder,
  btoa: () => btoa,
  atob: () => atob,
  structuredClone: () => structuredClone,
  URL: () => urlClasses().URL,
  URLSearchParams: () => urlClasses().URLSearchParams,
}

function putGlobal(name: string, value: unknown): void {
  // A program that froze the global object keeps the accessor: the value is still returned.
  try {
    defineGlobal(name, value, true)
  } catch {}
}

/**
 * Each name is an accessor on the global object until first read; its getter builds the value and puts
 * back the same data property an eager install made, its setter puts back the value assigned.
 */
function lazyGlobal(name: string, build: () => unknown): void {
  let built = false
  let value: unknown
  ObjectDefineProperty(globalObject, name, {
    __proto__: null,
    enumerable: false,
    configurable: true,
    get() {
      if (!built) {
        value = build()
        built = true
      }
      putGlobal(name, value)
      return value
    },
    set(v: unknown) {
      putGlobal(name, v)
    },
  })
}

/** Installs the standard globals in this realm (once, when the guest is evaluated). */
export function installStandardGlobals(): void {
  defineGlobal(
    'queueMicrotask',
    function queueMicrotask(fn: unknown) {
      if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function')
      ReflectApply(promiseThen, promiseResolve(undefined), [() => fn()])
    },
    true,
  )
  const names = ObjectKeys(STANDARD_GLOBALS)
  for (let i = 0; i < names.length; i++) lazyGlobal(names[i]!, STANDARD_GLOBALS[names[i]!]!)
}

/**
 * The container's bridge: the value of the container's guest bundle, evaluated in the program's own vm
 * realm inside the runner (sandbox/docker/runner/realm.ts) before any program. Each run calls it with the
 * runner's callbacks, which stay in its closure:
 *
 *   codeactBridge(send(id, name, argsJson), log(level, text), configJson, arm(fn, ms) => cancel,
 *                 urlRecord(input, base?), urlSet(href, field, value))
 *     → { start(programFn, onConsole, done(outcomeJson)), deliver(id, resultJson) }
 *
 * Every promise it hands out has an own `constructor` of undefined (calls.ts's `plain`), so `then` on it
 * uses the realm's true Promise whatever the program does to `Promise[Symbol.species]`.
 */
import {
  type Any,
  globalObject,
  JSONparse,
  MapCtor,
  mapDelete,
  mapGet,
  mapSet,
  ObjectCreate,
  ObjectDefineProperty,
  promiseThen,
  ReflectApply,
} from '../intrinsics.js'
import { installPrelude } from '../prelude.js'
import type { HostTimer } from '../timers.js'
import type { UrlRecordFn, UrlSetFn } from '../url.js'
import { makeCallTable, plain, type Send } from './calls.js'

/** The runner's clock: fire `fn` after `ms` (0: the next macrotask); returns the timer's cancel. */
type Arm = (fn: () => void, ms: number) => () => void
export type ContainerControl = {
  start(programFn: Any, onConsole: (console: Any) => void, done: (outcomeJson: string) => void): void
  deliver(id: number, text: string): void
}

const prelude = installPrelude()

/** The prelude's timers (its end-of-run idle check, the program's setTimeout) on the runner's clock. */
function runnerTimers(arm: Arm, fire: (id: number) => void): HostTimer {
  const disarms = new MapCtor<number, () => void>()
  return (op, id, ms) => {
    const off = ReflectApply(mapGet, disarms, [id])
    if (off !== undefined) {
      ReflectApply(mapDelete, disarms, [id])
      off()
    }
    if (op !== 'set') return
    const cancel = arm(() => {
      ReflectApply(mapDelete, disarms, [id])
      fire(id)
    }, ms)
    ReflectApply(mapSet, disarms, [id, cancel])
  }
}

export default function codeactBridge(
  send: Send,
  log: (level: string, text: string) => void,
  configJson: string,
  arm: Arm,
  urlRecord: UrlRecordFn,
  urlSet: UrlSetFn,
): ContainerControl {
  const calls = makeCallTable(send)
  let fireTimer: (id: number) => void = () => {}
  const hostTimer = runnerTimers(arm, (id) => fireTimer(id))
  const runProgram = prelude(calls.call, (level, text) => log(level, text), JSONparse(configJson), hostTimer, urlRecord, urlSet)
  fireTimer = runProgram.fireTimer
  const control: ContainerControl = ObjectCreate(null)
  control.start = (programFn, onConsole, done) => {
    const wrapped = (tools: Any, ToolCallError: Any, console: Any): unknown => {
      // The realm's console is the run's: what Node's own modules print reaches the run too.
      ObjectDefineProperty(globalObject, 'console', {
        __proto__: null,
        value: console,
        writable: true,
        configurable: true,
        enumerable: false,
      })
      onConsole(console)
      return programFn(tools, ToolCallError, console)
    }
    ReflectApply(promiseThen, plain(runProgram(wrapped)), [done, done])
  }
  control.deliver = (id, text) => calls.settle(id, text)
  return control
}

/**
 * The tool calls a run has in flight, for every backend's bridge: each call gets an id and goes to the
 * host as `send(id, name, argsJson)`; the host's answer settles it by id. Calls past the in-flight limits
 * (limits.ts, the same numbers the host checks) are refused here with EAGAIN instead of queued: a program
 * firing calls without awaiting them must not fill memory with messages the host reads slowly.
 */
import { MapCtor, mapDelete, mapGet, mapSet, ObjectCreate, ObjectDefineProperty, PromiseCtor, ReflectApply } from '../intrinsics.js'
import { MAX_ARGS_CHARS_IN_FLIGHT, MAX_CALLS_IN_FLIGHT, TOO_MANY_CALLS_JSON } from '../limits.js'

export type Send = (id: number, name: string, argsJson: string) => void
export type CallTable = {
  /** The call as the prelude makes it (its HostCall). */
  call(name: string, argsJson: string): Promise<string>
  /** The host's answer to call `id`; an unknown or settled id is ignored. */
  settle(id: number, text: string): void
}
type Entry = { resolve: (text: string) => void; size: number }

/**
 * A promise whose `then` always uses the realm's true Promise: an own `constructor` of undefined, so
 * neither `Promise[Symbol.species]` nor `Promise.prototype.constructor` as a program left them is read.
 */
export function plain<T>(p: Promise<T>): Promise<T> {
  ObjectDefineProperty(p, 'constructor', { __proto__: null, value: undefined })
  return p
}

export function makeCallTable(send: Send): CallTable {
  const pending = new MapCtor<number, Entry>()
  let nextCallId = 1
  let callsInFlight = 0
  let argsInFlight = 0
  return {
    call(name, argsJson) {
      return plain(
        new PromiseCtor<string>((resolve) => {
          if (callsInFlight >= MAX_CALLS_IN_FLIGHT || argsInFlight + argsJson.length > MAX_ARGS_CHARS_IN_FLIGHT)
            return resolve(TOO_MANY_CALLS_JSON)
          const id = nextCallId++
          const entry: Entry = ObjectCreate(null)
          entry.resolve = resolve
          entry.size = argsJson.length
          callsInFlight++
          argsInFlight += entry.size
          ReflectApply(mapSet, pending, [id, entry])
          send(id, name, argsJson)
        }),
      )
    },
    settle(id, text) {
      const entry: Entry | undefined = ReflectApply(mapGet, pending, [id])
      if (entry === undefined) return
      ReflectApply(mapDelete, pending, [id])
      callsInFlight--
      argsInFlight -= entry.size
      entry.resolve(text)
    },
  }
}

/**
 * A run's timers: `setTimeout`, `setInterval` and their clears, on the host's clock (an isolate has none
 * of its own; the bridge passes host timers) or the realm's (a container's Node). A run waits for its
 * pending timeouts; intervals still running when the body settles are stopped, and the outcome says so.
 * Timer 0 is the run's own end-of-run idle check. A timer is due on the program's clock (held-clock.ts), which
 * stands still while the host holds the program's calls for its type check: one that comes due in such a
 * wait is parked and armed again for the rest of its time when the wait ends.
 */
import {
  type Any,
  defineGlobal,
  list,
  MapCtor,
  MathFloor,
  MathMax,
  mapClear,
  mapDelete,
  mapForEach,
  mapGet,
  mapSet,
  mapSizeGetter,
  NumberCtor,
  ObjectCreate,
  promiseResolve,
  promiseThen,
  put,
  RangeErrorCtor,
  ReflectApply,
  realmClearTimeout,
  realmSetTimeout,
  TypeErrorCtor,
} from './intrinsics.js'
import { clockBehind, clockHeld, programNow } from './held-clock.js'
import type { RunState } from './run-state.js'

/** The bridge's timer: `set` asks the host to fire `id` after `ms`; `clear` lets it go. */
export type HostTimer = (op: 'set' | 'clear', id: number, ms: number) => void
export type RunTimers = { fire(id: number): void; stopIntervals(): void; clearAll(): void; maybeIdle(): void; thaw(): void }

const IDLE_TIMER = 0
/** Timers one run may have pending. */
const MAX_TIMERS = 1000
/** The longest delay a timer keeps (Node's): longer ones fire after this. */
const MAX_DELAY = 2147483647
/** Promise turns before the run ends, in a realm with no timer source at all. */
const IDLE_TURNS = 32

/** `due`: on the program's clock; `behind`: how far that clock was behind the real one when it was armed. */
type Entry = { fn: Any; args: Any[]; repeat: boolean; delay: number; due: number; behind: number; parked: boolean }

export function makeTimers(run: RunState, hostTimer: HostTimer | undefined): RunTimers {
  const timers = new MapCtor<number, Entry>()
  const realmHandles = new MapCtor<number, unknown>()
  let timerSeq = 1
  let timeoutsPending = 0
  let idleArmed = false
  const pending = (): boolean => run.callsInFlight > 0 || timeoutsPending > 0

  function armHost(id: number, ms: number): boolean {
    if (hostTimer) {
      hostTimer('set', id, ms)
      return true
    }
    if (!realmSetTimeout) return false
    const handle = realmSetTimeout(() => {
      ReflectApply(mapDelete, realmHandles, [id])
      fire(id)
    }, ms)
    ReflectApply(mapSet, realmHandles, [id, handle])
    return true
  }
  function disarmHost(id: number): void {
    if (hostTimer) return hostTimer('clear', id, 0)
    const h = ReflectApply(mapGet, realmHandles, [id])
    if (h === undefined) return
    ReflectApply(mapDelete, realmHandles, [id])
    realmClearTimeout(h)
  }
  function add(fn: unknown, ms: unknown, args: Any[], repeat: boolean): number {
    if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function')
    if (run.completed) return 0
    if (ReflectApply(mapSizeGetter, timers, []) >= MAX_TIMERS)
      throw new RangeErrorCtor('too many timers pending (at most ' + MAX_TIMERS + ')')
    let delay = NumberCtor(ms)
    if (!(delay >= 1)) delay = repeat ? 1 : 0
    if (delay > MAX_DELAY) delay = MAX_DELAY
    delay = MathFloor(delay)
    const id = timerSeq++
    const entry: Entry = ObjectCreate(null)
    entry.fn = fn
    entry.args = args
    entry.repeat = repeat
    entry.delay = delay
    entry.due = programNow() + delay
    entry.behind = clockBehind()
    entry.parked = false
    ReflectApply(mapSet, timers, [id, entry])
    if (!repeat) timeoutsPending++
    if (!armHost(id, delay)) throw new TypeErrorCtor('timers are not available in this sandbox')
    return id
  }
  function remove(id: unknown): void {
    const key = NumberCtor(id)
    const entry: Entry | undefined = ReflectApply(mapGet, timers, [key])
    if (entry === undefined) return
    ReflectApply(mapDelete, timers, [key])
    if (!entry.repeat) timeoutsPending--
    disarmHost(key)
    maybeIdle()
  }
  function fire(id: number): void {
    if (id === IDLE_TIMER) {
      idleArmed = false
      if (run.settled && !run.completed && !pending()) run.complete()
      return
    }
    const entry: Entry | undefined = ReflectApply(mapGet, timers, [id])
    if (entry === undefined || run.completed) return
    if (notDue(id, entry)) return
    if (entry.repeat) {
      entry.due = programNow() + entry.delay
      entry.behind = clockBehind()
      armHost(id, entry.delay)
    } else {
      ReflectApply(mapDelete, timers, [id])
      timeoutsPending--
    }
    try {
      ReflectApply(entry.fn, undefined, entry.args)
    } catch (e) {
      run.fail(e)
      return
    }
    maybeIdle()
  }
  /** A timer the real clock fired before the program's came to it (a hold since it was armed): parked or re-armed. */
  function notDue(id: number, entry: Entry): boolean {
    if (clockBehind() === entry.behind) return false
    const left = entry.due - programNow()
    if (left < 1) return false
    if (clockHeld()) entry.parked = true
    else armHost(id, left)
    return true
  }
  /** The hold ended: each timer parked in it is armed for the time it had left. */
  function thaw(): void {
    ReflectApply(mapForEach, timers, [
      (entry: Entry, id: number) => {
        if (!entry.parked) return
        entry.parked = false
        armHost(id, MathMax(0, entry.due - programNow()))
      },
    ])
  }
  /** Settled and nothing pending: finish one macrotask later, so continuations of the last call run first. */
  function maybeIdle(): void {
    if (!run.settled || run.completed || pending() || idleArmed) return
    idleArmed = true
    if (armHost(IDLE_TIMER, 0)) return
    // No timer source at all: a few promise turns are the best we have.
    let turns = 0
    const hop = (): void => {
      if (++turns < IDLE_TURNS) {
        ReflectApply(promiseThen, promiseResolve(undefined), [hop])
        return
      }
      idleArmed = false
      if (run.settled && !run.completed && !pending()) run.complete()
    }
    hop()
  }
  function restArgs(args: ArrayLike<unknown>, from: number): Any[] {
    const out = list()
    for (let i = from; i < args.length; i++) put(out, args[i])
    return out
  }
  function setTimeout(fn: unknown, ms: unknown, ...rest: unknown[]) {
    return add(fn, ms, restArgs(rest, 0), false)
  }
  function setInterval(fn: unknown, ms: unknown, ...rest: unknown[]) {
    return add(fn, ms, restArgs(rest, 0), true)
  }
  function clearTimeout(id: unknown) {
    remove(id)
  }
  function clearInterval(id: unknown) {
    remove(id)
  }
  defineGlobal('setTimeout', setTimeout, true)
  defineGlobal('setInterval', setInterval, true)
  defineGlobal('clearTimeout', clearTimeout, true)
  defineGlobal('clearInterval', clearInterval, true)
  return {
    fire,
    maybeIdle,
    thaw,
    stopIntervals() {
      ReflectApply(mapForEach, timers, [
        (entry: Entry, id: number) => {
          if (!entry.repeat) return
          run.intervalsStopped++
          ReflectApply(mapDelete, timers, [id])
          disarmHost(id)
        },
      ])
    },
    clearAll() {
      ReflectApply(mapForEach, timers, [(_: Entry, id: number) => disarmHost(id)])
      ReflectApply(mapClear, timers, [])
      timeoutsPending = 0
    },
  }
}

/**
 * The isolate's bridge: evaluated in each fresh context right after the prelude (sandbox/isolate/realm.ts),
 * before any program script. Its value is a function each run calls with its host callbacks; it keeps them
 * in its closure, so no isolated-vm object and no temporary global is ever reachable from the program.
 *
 *   codeactGlue(prelude, send(callId, name, argsJson), log(level, text), timer(op, id, ms), configJson,
 *               urlRecord(input, base?), urlSet(href, field, value))
 *
 * (send, log and timer fire-and-forget; the two URL functions synchronous and pure: the host's own URL
 * parser, sandbox/url-host.ts, answering JSON text) runs the prelude's per-run setup in the same call and returns one
 * function, `control`:
 *   control('start', programFn)              runs the program; resolves to the JSON text of an Outcome
 *   control('deliver', callId, text)         settles a pending tool call with the host's answer
 *   control('deliver', [callId, text, …])    settles several, in order
 *   control('timer', id)                     fires a host timer
 *   control('tick')                          the next macrotask: fires the zero-delay timers armed since
 *   control('hold', 1 | 0)                   the host holds the program's calls for their type check, or let them go
 *
 * The host queues a `tick` right behind 'start' and every 'timer', so a zero-delay timer armed in one of
 * them (the run's end-of-run idle check; a program's setTimeout(f, 0)) fires in the isolate's next task,
 * after that task's microtasks, without a round trip to the child's thread and back. One armed anywhere
 * else (in a tick; in a 'deliver', which gets no tick: that would cost every tool call a task) goes to the
 * host, which fires it as a 'timer' at its next macrotask.
 */
import { type Any, JSONparse, MapCtor, mapDelete, mapForEach, mapSet, ObjectCreate, ReflectApply } from '../intrinsics.js'
import type { RunConfig, RunProgram } from '../run.js'
import type { HostTimer } from '../timers.js'
import type { UrlRecordFn, UrlSetFn } from '../url.js'
import { makeCallTable, type Send } from './calls.js'

type Prelude = (
  hostCall: (name: string, argsJson: string) => Promise<string>,
  hostLog: (level: string, text: string) => void,
  config: RunConfig,
  hostTimer: HostTimer,
  urlRecord: UrlRecordFn,
  urlSet: UrlSetFn,
) => RunProgram

type TimerRouting = {
  hostTimer: HostTimer
  /** The tick behind a 'start' or 'timer': fires the zero-delay timers armed since (when `fire` is given). */
  tick(fire: ((id: number) => void) | undefined): void
  /** A task ('start', 'timer') with a tick queued behind it begins. */
  behind(): void
  /** The host fires timer `id`: true when the host held it (else it was replaced or cleared since). */
  release(id: number): boolean
}

/** Zero-delay timers wait for the tick queued behind 'start' or 'timer'; others go to the host. */
function makeTimerRouting(timer: HostTimer): TimerRouting {
  // Zero-delay timers waiting for the next tick ('ticking': the batch a tick is firing now), and the ids
  // of the timers the host holds.
  let dueAtTick = new MapCtor<number, boolean>()
  let ticking: Map<number, boolean> | undefined
  let tickBehind = false
  const atHost = new MapCtor<number, boolean>()
  const routing: TimerRouting = ObjectCreate(null)
  routing.hostTimer = (op, id, ms) => {
    // Whatever is asked of an id replaces what was armed for it.
    ReflectApply(mapDelete, dueAtTick, [id])
    if (ticking !== undefined) ReflectApply(mapDelete, ticking, [id])
    const held = ReflectApply(mapDelete, atHost, [id])
    if (op === 'set' && !(ms >= 1) && tickBehind) {
      // The host's earlier timer of this id, if any, is let go: this one fires at the tick.
      if (held) timer('clear', id, 0)
      ReflectApply(mapSet, dueAtTick, [id, true])
      return
    }
    if (op === 'set') ReflectApply(mapSet, atHost, [id, true])
    if (op === 'set' || held) timer(op, id, ms)
  }
  routing.tick = (fire) => {
    // The tick queued behind a 'start' or 'timer' is this one: from here a zero-delay timer goes to the host.
    tickBehind = false
    if (fire === undefined) return
    ticking = dueAtTick
    dueAtTick = new MapCtor()
    try {
      ReflectApply(mapForEach, ticking, [(_: boolean, id: number) => fire(id)])
    } finally {
      ticking = undefined
    }
  }
  routing.behind = () => {
    tickBehind = true
  }
  routing.release = (id) => ReflectApply(mapDelete, atHost, [id])
  return routing
}

export default function codeactGlue(
  prelude: Prelude,
  send: Send,
  log: (level: string, text: string) => void,
  timer: HostTimer,
  configJson: string,
  urlRecord: UrlRecordFn,
  urlSet: UrlSetFn,
) {
  const calls = makeCallTable(send)
  const routing = makeTimerRouting(timer)
  const runProgram = prelude(calls.call, (level, text) => log(level, text), JSONparse(configJson), routing.hostTimer, urlRecord, urlSet)
  const fireTimer = runProgram.fireTimer
  let started = false
  return function control(op: string, a: Any, b: Any): unknown {
    if (op === 'tick') {
      routing.tick(started ? fireTimer : undefined)
      return undefined
    }
    if (op === 'start') {
      if (started) return undefined
      started = true
      // Until the tick queued behind this task runs (its microtasks included: an async program's value
      // settles there, and the prelude arms its idle check then), a zero-delay timer waits for that tick.
      routing.behind()
      return runProgram(a)
    }
    if (op === 'hold') {
      runProgram.holdClock(a === 1)
      return undefined
    }
    if (op === 'timer') {
      if (!started || !routing.release(a)) return undefined
      routing.behind()
      fireTimer(a)
      return undefined
    }
    // One answer as (callId, text); several as a copied array of them (own elements: an index loop reads no prototype).
    if (typeof a === 'number') return calls.settle(a, b)
    for (let i = 0; i + 1 < a.length; i += 2) calls.settle(a[i], a[i + 1])
    return undefined
  }
}

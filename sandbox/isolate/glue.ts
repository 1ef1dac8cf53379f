/**
 * The glue that joins the prelude to the child process. GLUE_SOURCE is a script, compiled once per isolate
 * and run in each fresh context right after the prelude (realm.ts), before any program script; its value
 * is a function that each run calls with its host callbacks (arguments `$0`…`$3`). It keeps them in its
 * closure, so no isolated-vm object and no temporary global is ever reachable from the program; the
 * intrinsics it uses are captured when the script runs, before any program.
 *
 *   $0 the prelude function
 *   $1 send(callId, name, argsJson)  $2 log(level, text)  $3 timer(op, id, ms)   (plain functions, fire-and-forget)
 *   $4 the run's config (JSON text): the prelude's per-run setup runs in the same call (once, before any
 *      program script runs, usually ahead of the run: realm.ts's armRealm), one call into the isolate less
 *
 * The call returns one function, `control`:
 *   control('start', programFn)              runs the program; resolves to the JSON text of a PreludeOutcome
 *   control('deliver', callId, text)         settles a pending tool call with the host's answer
 *   control('deliver', [callId, text, …])    settles several, in order
 *   control('timer', id)                     fires a host timer
 *   control('tick')                          the next macrotask: fires the zero-delay timers armed since
 *
 * The host queues a `tick` right behind 'start' and every 'timer', so a zero-delay timer armed in one of
 * them (the prelude's end-of-run idle check, every run; a program's setTimeout(f, 0)) fires in the
 * isolate's next task, after that task's microtasks, without a round trip to the child's thread and back.
 * One armed anywhere else (in a tick; in a 'deliver', which gets no tick: that would cost every tool call
 * a task) goes to the host, which fires it as a 'timer' at its next macrotask.
 * A tool call is a fire-and-forget message out and an ignored apply back in: two hops, nothing blocks.
 * The prelude removes WebAssembly when it is evaluated; the delete here is a second lock for a prelude
 * built without it.
 *
 * Below: the two ways a run gives 'start' (and its tick) to the glue's control.
 */
import type ivm from 'isolated-vm'
import type { Control } from './realm.js'

export const GLUE_FILENAME = 'codeact-glue.js'

export const GLUE_SOURCE = `(function codeactGlueSetup() {
'use strict';
// WebAssembly memory is not counted against the isolate's memory limit (measured: it grows to gigabytes
// in the child), so a program does not get WebAssembly at all.
delete globalThis.WebAssembly;
const JSONparse = JSON.parse, ReflectApply = Reflect.apply, PromiseCtor = Promise, MapCtor = Map;
const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete, mapForEach = Map.prototype.forEach;
return function codeactGlue($0, $1, $2, $3, $4) {
const prelude = $0, send = $1, log = $2, timer = $3;
const pending = new MapCtor();
let nextCallId = 0, fireTimer, runProgram, started = false;
// Zero-delay timers waiting for the next tick ('ticking': the batch a tick is firing now), and the ids
// of the timers the host holds.
let dueAtTick = new MapCtor(), ticking = undefined, tickBehind = false;
const atHost = new MapCtor();
function hostCall(name, argsJson) {
  return new PromiseCtor(function (resolve) {
    const callId = nextCallId++;
    ReflectApply(mapSet, pending, [callId, resolve]);
    send(callId, name, argsJson);
  });
}
function hostLog(level, text) { log(level, text); }
function hostTimer(op, id, ms) {
  // Whatever is asked of an id replaces what was armed for it.
  ReflectApply(mapDelete, dueAtTick, [id]);
  if (ticking !== undefined) ReflectApply(mapDelete, ticking, [id]);
  const held = ReflectApply(mapDelete, atHost, [id]);
  if (op === 'set' && !(ms >= 1) && tickBehind) {
    // The host's earlier timer of this id, if any, is let go: this one fires at the tick.
    if (held) timer('clear', id, 0);
    ReflectApply(mapSet, dueAtTick, [id, true]);
    return;
  }
  if (op === 'set') ReflectApply(mapSet, atHost, [id, true]);
  if (op === 'set' || held) timer(op, id, ms);
}
function fireOne(_, id) { fireTimer(id); }
runProgram = prelude(hostCall, hostLog, JSONparse($4), hostTimer);
fireTimer = runProgram.fireTimer;
return function control(op, a, b) {
  if (op === 'tick') {
    // The tick queued behind a 'start' or 'timer' is this one: from here a zero-delay timer goes to the host.
    tickBehind = false;
    if (!started) return;
    ticking = dueAtTick;
    dueAtTick = new MapCtor();
    try { ReflectApply(mapForEach, ticking, [fireOne]); } finally { ticking = undefined; }
    return;
  }
  if (op === 'start') {
    if (started) return;
    started = true;
    // Until the tick queued behind this task runs (its microtasks included: an async program's value
    // settles there, and the prelude arms its idle check then), a zero-delay timer waits for that tick.
    tickBehind = true;
    return runProgram(a);
  }
  if (op === 'timer') {
    if (!started || !ReflectApply(mapDelete, atHost, [a])) return;
    tickBehind = true;
    fireTimer(a);
    return;
  }
  // One answer as (callId, text); several as a copied array of them (own elements: an index loop reads no prototype).
  if (typeof a === 'number') { settle(a, b); return; }
  for (let i = 0; i + 1 < a.length; i += 2) settle(a[i], a[i + 1]);
};
function settle(callId, text) {
  const resolve = ReflectApply(mapGet, pending, [callId]);
  if (resolve === undefined) return;
  ReflectApply(mapDelete, pending, [callId]);
  resolve(text);
}
};
})()`

/**
 * The longest a program's start may hold the child's thread when it runs there (startInline): a trivial
 * start takes well under a millisecond.
 */
export const INLINE_START_MS = 20

/** 'start' as a task on the isolate's own thread, and its tick queued right behind it. */
export function startOnIsolateThread(control: Control, program: ivm.Dereference<unknown>, remaining: () => number): Promise<unknown> {
  const started = control.apply(undefined, ['start', program], {
    result: { promise: true, copy: true },
    // The synchronous start of the program is its own time; what it awaits is bounded by the clocks.
    timeout: remaining(),
  }) as Promise<unknown>
  // The tick behind 'start' runs the end-of-run idle check when the program did not wait for anything.
  try {
    control.applyIgnored(undefined, ['tick'])
  } catch {
    // disposed already: 'start' rejects
  }
  return started
}

/**
 * 'start' and its tick as synchronous calls on the child's own thread, for a run alone in the child
 * (isolate-run.ts's RunIO.startInline): the isolate is idle and only that thread gives it work, so the
 * program's synchronous start and the microtasks after it (isolated-vm runs them at the end of each call)
 * run there. No hop to the isolate's thread and back, no wake-up for the answer, no stack captured for an
 * asynchronous call.
 *
 * The thread is held for INLINE_START_MS at most, so an abort, another run arriving, the console's flush
 * wait no longer than that. A start past it is cut off (`cut` is called, then this throws) and the run is
 * started again on the isolate's thread in another isolate: nothing of it has left the process, since the
 * glue's callbacks (calls, console lines, timers) are tasks the thread runs only once the call returns,
 * and the run detaches them (execute's finally) before that. A time limit reached here, or any other
 * limit, throws as on the isolate's thread.
 */
export function startInline(
  control: Control,
  program: ivm.Dereference<unknown>,
  remaining: () => number,
  cut: () => void,
): Promise<unknown> {
  const sliceEnd = performance.now() + INLINE_START_MS
  // The slice's time left, or the run's own if that is shorter (then a timeout is the run's).
  const bound = (): { timeout: number; slice: boolean } => {
    const left = Math.max(1, Math.ceil(sliceEnd - performance.now()))
    const budget = remaining()
    return left < budget ? { timeout: left, slice: true } : { timeout: budget, slice: false }
  }
  const first = bound()
  let started: Promise<unknown>
  try {
    started = control.applySync(undefined, ['start', program], {
      result: { promise: true, copy: true },
      timeout: first.timeout,
    }) as Promise<unknown>
  } catch (e) {
    if (first.slice && timedOut(e)) cut()
    throw e
  }
  const tick = bound()
  try {
    control.applySync(undefined, ['tick'], { timeout: tick.timeout })
  } catch (e) {
    // A zero-delay timer's callback that ran past the slice or the run's time. Anything else is what the
    // ignored tick on the isolate's thread drops too: a disposed isolate ('start' rejects) or a rejection
    // the tick's microtasks left unhandled.
    if (timedOut(e)) {
      if (tick.slice) cut()
      // Not awaited now: it rejects ("abandoned") once the isolate is disposed, which must not reach the
      // process as an unhandled rejection (the child would die with every run in it).
      started.catch(() => {})
      throw e
    }
  }
  return started
}

function timedOut(e: unknown): boolean {
  return e instanceof Error && /timed out/i.test(e.message)
}

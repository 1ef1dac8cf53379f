/**
 * How a run gives 'start' (and the tick behind it) to the isolate's bridge (guest/bridge/isolate.ts: its
 * `control`, evaluated in each fresh context right after the prelude by realm.ts). The host queues a
 * `tick` right behind 'start' and every 'timer', so a zero-delay timer armed in one of them fires in the
 * isolate's next task without a round trip to the child's thread and back.
 */
import type ivm from 'isolated-vm'
import type { Control } from './realm.js'

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

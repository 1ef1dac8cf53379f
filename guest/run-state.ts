/**
 * One run's shared state: what the timers, the tool calls and the run's end read and change. The run is
 * over when the program's body has settled and nothing it started is still pending (calls it did not await,
 * timeouts), like Node's event loop.
 */
import type { Any } from './intrinsics.js'
import type { Outcome } from './outcome.js'

export type { Outcome }

export type RunState = {
  /** The program's body has settled (its promise resolved). */
  settled: boolean
  /** The run's outcome is decided; nothing of the program runs any more. */
  completed: boolean
  callsInFlight: number
  /** Calls started after the body settled (from a callback it left behind). */
  callsLate: number
  intervalsStopped: number
  /** Decides the outcome once nothing is pending (set when the body settles). */
  complete: () => void
  /** Ends the run with what the program threw. */
  fail: (e: unknown) => void
  /** Hands the outcome to the bridge (set when the run starts). */
  finishWith: (o: Outcome) => void
}

export function newRunState(): RunState {
  const noop = (): void => {}
  const st: Any = { __proto__: null }
  st.settled = false
  st.completed = false
  st.callsInFlight = 0
  st.callsLate = 0
  st.intervalsStopped = 0
  st.complete = noop
  st.fail = noop
  st.finishWith = noop
  return st
}

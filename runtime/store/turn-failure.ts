/**
 * A turn the session store could not serve, as a RunResult: an infrastructure error (kind
 * `sandbox_unavailable`, the errno-style code of the store's answer), never "your code failed".
 */
import type { RunResult } from '../../vocabulary/types.js'
import type { StoreError } from './types.js'

/** The store failed before the turn started: nothing of it ran. */
export function storeRefused(error: StoreError): RunResult {
  const what = error.code === 'EBUSY' ? 'nothing of this turn ran' : 'this is the service, not your program: nothing of this turn ran'
  return {
    ok: false,
    value: undefined,
    logs: [],
    calls: [],
    error: { kind: 'sandbox_unavailable', code: error.code, message: error.message },
    observation: `Error (${error.code}): ${error.message}; ${what}.`,
    events: [],
  }
}

/**
 * The turn ran but its record could not be written: its answer is withheld (a restore could not give the
 * same state), and the turn counts as lost — the session's next turn says so in its restore note.
 */
export function storeLostTurn(ran: RunResult, error: StoreError): RunResult {
  return {
    ...ran,
    ok: false,
    value: undefined,
    error: { kind: 'sandbox_unavailable', code: error.code, message: error.message },
    observation: `Error (${error.code}): ${error.message}; this is the service, not your program: the turn ran but could not be recorded, so it counts as lost and what it assigned is gone (its tool calls happened).`,
  }
}

/**
 * Graceful drain: wait for the calls in flight to finish, at most `timeoutMs`; then stop what is left (each
 * run ends `aborted`, its answer led by why) and wait, briefly, for those answers to be sent.
 */

/** Inside Kubernetes' default 30 s termination grace period, leaving 5 s to cancel and close. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 25_000

/** After cancelling: how long the cancelled calls may take to answer (an aborted run settles at once). */
const CANCEL_GRACE_MS = 5_000
const POLL_MS = 25

export interface Drainable {
  inFlight(): number
  abortCalls(reason: string): void
}

export interface Drained {
  /** Calls still running at the timeout, and so cancelled. */
  cancelled: number
  waitedMs: number
}

export async function drainCalls(calls: Drainable, timeoutMs: number): Promise<Drained> {
  const started = Date.now()
  await until(() => calls.inFlight() === 0, timeoutMs)
  const cancelled = calls.inFlight()
  if (cancelled > 0) {
    calls.abortCalls(
      `codeact: the server is shutting down; it waited ${timeoutMs} ms (--drain-timeout) and then stopped this call. ` +
        'What it did before is reported below. Send it again once connected to a server that is up.',
    )
    await until(() => calls.inFlight() === 0, CANCEL_GRACE_MS)
  }
  return { cancelled, waitedMs: Date.now() - started }
}

function until(done: () => boolean, withinMs: number): Promise<void> {
  if (done()) return Promise.resolve()
  const deadline = Date.now() + withinMs
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (!done() && Date.now() < deadline) return
      clearInterval(timer)
      resolve()
    }, POLL_MS)
  })
}

/** The longest delay Node's timers take; anything above it fires after 1 ms (with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * A delay every timer takes: a whole number of ms in [1, MAX_TIMER_MS]. isolated-vm's `timeout` refuses any
 * other value with a TypeError ("must be a 32-bit number"), a fraction included, and Node's timers fire at
 * once past the top, so a limit of "a month" would end a run at once.
 */
export function timerMs(ms: number): number {
  return Number.isNaN(ms) ? 1 : Math.min(MAX_TIMER_MS, Math.max(1, Math.floor(ms)))
}

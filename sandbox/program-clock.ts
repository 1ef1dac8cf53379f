import { timerMs } from '../vocabulary/timer.js'

/**
 * The program's own clock: wall time runs only while none of the program's tool calls is pending. While
 * the host works (a long `bash`, a person reading an approval prompt) the program is waiting on the host,
 * not on itself, so that time is not charged to it; each call has its own timeout, and the run's deadline
 * bounds the whole. The isolate backend also charges CPU time always (see isolate/isolate-run.ts), so busy
 * JS beside a pending call is still bounded; in Docker the deadline bounds it. Shared by both backends.
 *
 * Rule (simple and sound): the clock runs iff no call is pending. A program with nothing pending can only
 * be running JS or waiting on a promise of its own — both are its own time.
 */

export class ProgramClock {
  readonly #budgetMs: number
  readonly #onExpired: () => void
  /** Program time used up to the moment the clock last stopped. */
  #usedMs = 0
  /** When the clock last started; undefined while stopped. */
  #runningSince: number | undefined
  #timer: NodeJS.Timeout | undefined
  #pending = 0
  #done = false

  constructor(budgetMs: number, onExpired: () => void) {
    this.#budgetMs = budgetMs
    this.#onExpired = onExpired
    this.#start()
  }

  /** Program time left, in ms (at least 1, for isolated-vm's per-step timeouts). */
  remaining(): number {
    const running = this.#runningSince === undefined ? 0 : Date.now() - this.#runningSince
    return Math.max(1, this.#budgetMs - this.#usedMs - running)
  }

  /** A call went out to the host: the first pending call stops the clock. */
  callStarted(): void {
    if (this.#pending++ === 0) this.#stop()
  }

  /** A call was answered: the last answer starts the clock again. */
  callSettled(): void {
    if (this.#pending === 0) return
    if (--this.#pending === 0) this.#start()
  }

  dispose(): void {
    this.#done = true
    this.#stop()
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /**
   * The timer is armed when the clock starts with none armed, for the time left then, and is not cleared
   * when the clock stops (a tool call per stop: re-arming each time cost every call two timer operations
   * on each side of the process boundary). Program time grows no faster than wall time, so it can only
   * fire early, never late; when it fires it looks at the time really used and expires the run or arms
   * itself again for the rest.
   */
  #start(): void {
    if (this.#done || this.#runningSince !== undefined) return
    this.#runningSince = Date.now()
    if (this.#budgetMs - this.#usedMs <= 0) {
      this.#onExpired()
      return
    }
    if (this.#timer === undefined) this.#arm()
  }

  #arm(): void {
    const running = this.#runningSince === undefined ? 0 : Date.now() - this.#runningSince
    const left = this.#budgetMs - this.#usedMs - running
    // Above 2^31-1 ms a Node timer fires at once; 24.8 days is "no limit" for a run.
    this.#timer = setTimeout(() => this.#fired(), timerMs(left))
  }

  #fired(): void {
    this.#timer = undefined
    if (this.#done) return
    const running = this.#runningSince === undefined ? 0 : Date.now() - this.#runningSince
    if (this.#budgetMs - this.#usedMs - running <= 0) this.#onExpired()
    // Stopped (a call is pending): armed again when the clock starts.
    else if (this.#runningSince !== undefined) this.#arm()
  }

  #stop(): void {
    if (this.#runningSince !== undefined) this.#usedMs += Date.now() - this.#runningSince
    this.#runningSince = undefined
  }
}

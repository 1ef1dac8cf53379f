/**
 * The deadline and the cancellation of the tool calls still open at the end of the turn of the event loop
 * they started in (dispatch.ts's `execute`). Most calls a program makes (a workspace tool's few syscalls
 * behind a promise) have settled by then and never get either. The rest are armed by group: the calls of
 * one turn that share a Cancellation (their scheduler) and a timeout get one timer and one cancel listener
 * between them, not one each: a wide fan-out to a fast tool would otherwise make and clear a timer and a
 * listener per call, and the timer objects would be a good part of the host's allocation per call.
 *
 * Same deadlines as a timer per call: every call of a group was armed at the same moment with the same
 * timeout. A group keeps its calls until the last of them settles (bounded by the calls started in one
 * turn, which the pool bounds) and then clears its timer and its listener.
 */
import { timerMs } from '../vocabulary/timer.js'

/** Where a running call learns that its run or batch was cancelled (the scheduler: one listener for all calls). */
export interface Cancellation {
  readonly aborted: boolean
  readonly reason: unknown
  /** `onCancel` runs once, when cancelled (not if already cancelled: check `aborted` first). */
  add(onCancel: () => void): void
  delete(onCancel: () => void): void
}

/** One call as the arming sees it: open until it settles; `expire` and `cancel` stop it (no-ops once settled). */
export interface Armable {
  readonly settled: boolean
  readonly cancellation: Cancellation
  readonly timeoutMs: number
  /** The group it was armed in (set here); told when the call settles. */
  group: ArmedGroup | undefined
  expire(): void
  cancel(): void
}

export class ArmedGroup {
  #calls: Armable[] = []
  #open = 0
  #timer: NodeJS.Timeout | undefined
  #cancellation: Cancellation
  readonly timeoutMs: number
  // Bound once per group: the Cancellation's listener set holds it until the group closes.
  #onCancel = (): void => {
    for (const c of this.#calls) c.cancel()
  }

  constructor(cancellation: Cancellation, timeoutMs: number) {
    this.#cancellation = cancellation
    this.timeoutMs = timeoutMs
  }

  belongsTo(cancellation: Cancellation, timeoutMs: number): boolean {
    return this.#cancellation === cancellation && this.timeoutMs === timeoutMs
  }

  add(call: Armable): void {
    call.group = this
    this.#calls.push(call)
    this.#open++
  }

  /** Starts the timer and listens for the cancellation (already cancelled: its calls are stopped now). */
  arm(): void {
    this.#timer = setTimeout(() => {
      for (const c of this.#calls) c.expire()
    }, timerMs(this.timeoutMs))
    if (this.#cancellation.aborted) this.#onCancel()
    else this.#cancellation.add(this.#onCancel)
  }

  /** One of its calls settled; the last one clears the timer and the listener. */
  settled(): void {
    if (--this.#open > 0) return
    clearTimeout(this.#timer)
    this.#cancellation.delete(this.#onCancel)
    this.#calls = []
  }
}

/** The calls started in this turn of the event loop (their own fields say the group each belongs in). */
let pending: Armable[] | undefined

/** Arms `call` at the end of this turn of the event loop, if it is still open then. */
export function armAtEndOfTurn(call: Armable): void {
  if (pending) {
    pending.push(call)
    return
  }
  pending = [call]
  setImmediate(armPending)
}

/**
 * Arms the calls waiting for the end of this turn now (a cancellation is about to be told): a cancel in the
 * turn a call started must reach its `ctx.signal` at once, not at the end of the turn — a tool that looked
 * at its signal after its run was cancelled found it live. Off the per-call path: called on abort only.
 */
export function armPendingNow(): void {
  if (pending) armPending()
}

function armPending(): void {
  const list = pending ?? []
  pending = undefined
  // Usually one group (one scheduler, one timeout): a linear search over the few there are.
  const groups: ArmedGroup[] = []
  let last: ArmedGroup | undefined
  for (let i = 0; i < list.length; i++) {
    const call = list[i]!
    if (call.settled) continue
    if (!last?.belongsTo(call.cancellation, call.timeoutMs)) {
      last = undefined
      for (const g of groups) if (g.belongsTo(call.cancellation, call.timeoutMs)) last = g
      if (!last) groups.push((last = new ArmedGroup(call.cancellation, call.timeoutMs)))
    }
    last.add(call)
  }
  for (const group of groups) group.arm()
}

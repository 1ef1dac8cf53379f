/**
 * Orders calls for both paths (a program's sub-calls, a model's native calls):
 * - pre-execute stages run one at a time, in submission order (a stateful guard is never raced);
 * - parallel tools overlap in a rolling pool of `maxParallel`; an exclusive tool waits for every earlier
 *   call to commit and holds back every later one (its pre-execute stage included) until it commits;
 * - results commit (post-execute hooks, log, caller) strictly in submission order.
 * On abort, started calls are told and settle as ECANCELED; unstarted calls get a synthetic ECANCELED.
 *
 * Three queues (to stage, ready to run, to commit) and one pump, not a chain of promises per call: a call
 * costs the caller's promise and what its hooks and its tool take. The pump starts in a microtask after
 * `submit`, so calls submitted together log every `tool/call` before any of them runs.
 */
import { armPendingNow } from './call-arming.js'
import type { Cancellation } from './call-arming.js'
import { execute, failure, finish, messageOf, prepare, resultJson, type DispatchEnv, type Prepared } from './dispatch.js'
import { declaresSideEffects, withCaller } from './ptc/callers.js'
import { Queue } from './queue.js'
import type { ToolCall, ToolResult } from '../vocabulary/types.js'

export interface Committed {
  call: ToolCall
  result: ToolResult
  durationMs: number
}

interface Slot {
  /** Submission index (0-based). */
  index: number
  call: ToolCall
  exclusive: boolean
  started: number
  /** The pre-execute stage's outcome (the call with its final args, or its refusal). */
  prepared?: Prepared
  /** The result before post-execute hooks; set once the call has run (or was refused). */
  raw?: ToolResult
  /** Settles the caller's promise at commit: with the result, or (`submitJson`) with its JSON text. */
  settle: (result: ToolResult) => void
}

export class CallScheduler implements Cancellation {
  #env: DispatchEnv
  #signal: AbortSignal
  #maxParallel: number
  #onCommit: ((c: Committed) => void) | undefined
  #toStage = new Queue<Slot>()
  #ready = new Queue<Slot>()
  #toCommit = new Queue<Slot>()
  /** Submission indices of the exclusive calls not yet committed, oldest first. */
  #exclusives = new Queue<number>()
  #submitted = 0
  #committed = 0
  #running = 0
  #staging = false
  #committing = false
  #pumping = false
  #again = false
  #queued = false
  #drains: { upTo: number; resolve: () => void }[] = []
  #cancels = new Set<() => void>()
  aborted = false
  reason: unknown = undefined

  constructor(options: { env: DispatchEnv; signal: AbortSignal; maxParallel: number; onCommit?: (c: Committed) => void }) {
    this.#env = options.env
    this.#signal = options.signal
    // One listener on the caller's signal however many calls are in flight (a huge fan-out is a
    // legitimate flood, not a leak): running calls register with the scheduler instead (`add`).
    if (options.signal.aborted) this.#abort(options.signal.reason)
    else options.signal.addEventListener('abort', () => this.#abort(options.signal.reason), { once: true })
    this.#maxParallel = Math.max(1, options.maxParallel)
    this.#onCommit = options.onCommit
  }

  /** Queues one call; resolves to its committed result. Logs `tool/call` now, `tool/result` at commit. */
  submit(call: ToolCall): Promise<ToolResult> {
    let settle!: (result: ToolResult) => void
    const committed = new Promise<ToolResult>((r) => (settle = r))
    this.#enqueue(call, settle)
    return committed
  }

  /**
   * The same, resolved to the committed result's JSON text (dispatch's `resultJson`), what a sandbox hands
   * the program: made at commit, not in a `then` on `submit`'s promise (a promise and a turn fewer per call).
   * A result that cannot be made JSON rejects, as `then(resultJson)` would (the sandbox answers the call failed).
   */
  submitJson(call: ToolCall): Promise<string> {
    let settle!: (result: ToolResult) => void
    const committed = new Promise<string>((resolve, reject) => {
      settle = (result) => {
        try {
          resolve(resultJson(result))
        } catch (e) {
          reject(e)
        }
      }
    })
    this.#enqueue(call, settle)
    return committed
  }

  #enqueue(call: ToolCall, settle: Slot['settle']): void {
    const definition = this.#env.registry.get(call.name)?.definition
    const logged = withCaller(call)
    // A program's sub-call is marked so that a failed run's list of completed calls says what not to repeat.
    if (call.origin === 'code' && definition && declaresSideEffects(definition.annotations)) logged.sideEffects = true
    this.#env.log.append('tool/call', logged)
    const started = Date.now()
    const exclusive = definition?.exclusive === true
    const slot: Slot = { index: this.#submitted++, call, exclusive, started, settle }
    if (exclusive) this.#exclusives.push(slot.index)
    this.#toStage.push(slot)
    this.#toCommit.push(slot)
    if (!this.#queued) {
      this.#queued = true
      queueMicrotask(() => {
        this.#queued = false
        this.#pump()
      })
    }
  }

  /** Resolves when every call submitted so far has committed. */
  drain(): Promise<void> {
    if (this.#committed >= this.#submitted) return Promise.resolve()
    return new Promise((resolve) => this.#drains.push({ upTo: this.#submitted, resolve }))
  }

  /** The names of the calls submitted and not yet committed, in submission order. */
  /** Every call submitted so far has committed. */
  get idle(): boolean {
    return this.#committed === this.#submitted
  }

  pendingNames(): string[] {
    return this.#toCommit.map((slot) => slot.call.name)
  }

  /** Cancellation of the calls running under this scheduler (dispatch's `execute` registers here). */
  add(onCancel: () => void): void {
    this.#cancels.add(onCancel)
  }

  delete(onCancel: () => void): void {
    this.#cancels.delete(onCancel)
  }

  #abort(reason: unknown): void {
    this.aborted = true
    this.reason = reason
    // Calls started in this turn are armed only at its end: arm them now (seeing `aborted`, they stop here).
    armPendingNow()
    const cancels = [...this.#cancels]
    this.#cancels.clear()
    for (const onCancel of cancels) {
      try {
        onCancel()
      } catch {
        // One call's cancellation must not stop the others'.
      }
    }
  }

  /** Moves every queue as far as it can go; never re-entered (a nested call makes the running one loop again). */
  #pump(): void {
    if (this.#pumping) {
      this.#again = true
      return
    }
    this.#pumping = true
    try {
      do this.#again = false
      while (this.#stages() || this.#starts() || this.#commits() || this.#again)
    } finally {
      this.#pumping = false
    }
  }

  /** Pre-execute stages, one at a time in submission order, as far as the barriers allow. */
  #stages(): boolean {
    let moved = false
    while (!this.#staging && this.#toStage.size) {
      const slot = this.#toStage.peek()!
      // An exclusive call waits for every earlier call to commit; any call waits for an earlier exclusive one.
      if (slot.exclusive ? this.#committed < slot.index : (this.#exclusives.peek() ?? Infinity) < slot.index) break
      this.#toStage.shift()
      moved = true
      const staged = this.#stage(slot)
      if (staged instanceof Promise) {
        this.#staging = true
        staged.then((prepared) => {
          this.#staging = false
          this.#staged(slot, prepared)
          this.#pump()
        })
        break
      }
      this.#staged(slot, staged)
    }
    return moved
  }

  #stage(slot: Slot): Prepared | Promise<Prepared> {
    const { call } = slot
    if (this.aborted) return { ok: false, call, result: failure('ECANCELED', `${call.name} was cancelled before it started`) }
    const refused = (e: unknown): Prepared => ({
      ok: false,
      call,
      result: failure('EIO', `the call could not be dispatched: ${messageOf(e)}`),
    })
    try {
      const staged = prepare(this.#env, call, this.#signal)
      return staged instanceof Promise ? staged.catch(refused) : staged
    } catch (e) {
      return refused(e)
    }
  }

  #staged(slot: Slot, prepared: Prepared): void {
    slot.prepared = prepared
    if (prepared.ok) this.#ready.push(slot)
    else slot.raw = prepared.result
  }

  /** Starts ready calls while the pool has room. */
  #starts(): boolean {
    let moved = false
    while (this.#running < this.#maxParallel && this.#ready.size) {
      const slot = this.#ready.shift()!
      moved = true
      const prepared = slot.prepared as Prepared & { ok: true }
      if (this.aborted) {
        slot.raw = failure('ECANCELED', `${prepared.call.name} was cancelled before it started`)
        continue
      }
      this.#running++
      const ran = execute(this.#env, prepared, this, (raw) => {
        this.#running--
        slot.raw = raw
        this.#pump()
      })
      if (ran !== undefined) {
        this.#running--
        slot.raw = ran
      }
    }
    return moved
  }

  /** Commits the finished calls at the head of the queue, in submission order. */
  #commits(): boolean {
    let moved = false
    while (!this.#committing && this.#toCommit.size) {
      const slot = this.#toCommit.peek()!
      if (slot.raw === undefined) break
      moved = true
      // A call that finished keeps its real result even if the run was aborted meanwhile: its effects happened.
      const done = finish(this.#env, slot.prepared!.call, slot.raw)
      if (done instanceof Promise) {
        this.#committing = true
        done.then((result) => {
          this.#committing = false
          this.#commit(slot, result)
          this.#pump()
        })
        break
      }
      this.#commit(slot, done)
    }
    return moved
  }

  #commit(slot: Slot, result: ToolResult): void {
    this.#toCommit.shift()
    this.#committed++
    if (slot.exclusive) this.#exclusives.shift()
    const durationMs = Date.now() - slot.started
    this.#env.log.append('tool/result', { id: slot.call.id, name: slot.call.name, result, durationMs })
    try {
      this.#onCommit?.({ call: slot.prepared!.call, result, durationMs })
    } catch {
      // The caller's bookkeeping must not stall the calls after this one.
    }
    slot.settle(result)
    while (this.#drains.length && this.#drains[0]!.upTo <= this.#committed) this.#drains.shift()!.resolve()
  }
}

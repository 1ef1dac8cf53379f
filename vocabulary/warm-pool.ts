/**
 * The one warm-pool lifecycle: every pool of codeact (isolate children, isolates, containers, checker threads)
 * is this over a small backend that says how to make and end one resource. What each state means:
 *
 * - starting — `create()` is in flight. Past `startTimeoutMs` the pool stops waiting: whoever waited is told
 *   `start_timeout`, and the resource, if it ever comes, is destroyed on arrival (a start that hangs must not
 *   hold a take, nor a slot, forever).
 * - idle — ready for the next take. The most recently given back goes first (its code and caches are the
 *   warmest), or with `takeOldest` the one given back longest ago (for resources that prepare themselves
 *   after a give: it has had the longest to); one idle for `idleMs` is destroyed unless fewer than `keep()`
 *   would be left (then it stays and is looked at again `idleMs` later). A new one that goes idle (not
 *   straight to a waiting take) is first shown to the backend's `standby`.
 * - busy — taken. It comes back with `give(resource, reusable)`: kept when reusable, healthy, under
 *   `maxUses` and under `maxIdle()`, else destroyed. `retire` ends it in any state (it died, or the holder
 *   had to stop it); `detach` hands it to the holder for good (single-use resources the holder ends itself).
 *   A holder that must check one before giving it back says it is `returning`: until the give it counts as
 *   ready for the refill, and a take that finds none idle waits up to `returnWaitMs` for it before it
 *   starts a create of its own (a check is much cheaper than a start, and the returned one is warm).
 * - stopping — `destroy()` is in flight. Past `stopTimeoutMs` the pool stops waiting and counts it `stuck`.
 *
 * Refill: after every take and every loss the pool starts creates until `warm()` are idle or starting
 * (`refillDelayMs` after a take: a start competes with the taker's run for the CPU; after `trim(keep, true)` the
 * take of the last idle one leaves it to that one's give). A create that fails is
 * not retried on its own (no hot loop on a dead engine): the first waiting take learns why, the next take
 * tries again. `close()` drains: takes waiting are answered `closed`, idle and busy resources are destroyed,
 * starting ones on arrival, and it resolves when every destroy has ended or passed its stop timeout.
 */

import type { Count, Created, PoolCounts, TakeFailure, Taken, WarmPoolBackend, WarmPoolOptions } from './warm-pool-options.js'

export type { Created, PoolCounts, TakeFailure, Taken, WarmPoolBackend, WarmPoolOptions } from './warm-pool-options.js'

interface Entry<R> {
  readonly resource: R
  uses: number
  timer: ReturnType<typeof setTimeout> | undefined
}

interface Waiter<R> {
  resolve(taken: Taken<R>): void
  /** Set while it waits for a returning resource (returnWaitMs): no create is started for it meanwhile. */
  returnWait?: ReturnType<typeof setTimeout> | undefined
}

const count = (c: Count | undefined, otherwise: number): number => (c === undefined ? otherwise : typeof c === 'number' ? c : c())

export class WarmPool<R> {
  readonly #backend: WarmPoolBackend<R>
  readonly #o: WarmPoolOptions
  /** Idle, the most recently given back last. */
  readonly #idle: Entry<R>[] = []
  readonly #busy = new Map<R, Entry<R>>()
  readonly #waiters: Waiter<R>[] = []
  readonly #stopping = new Set<Promise<void>>()
  readonly #returning = new Set<R>()
  #starting = 0
  /** Takes waiting for a returning resource (no create is started for them yet). */
  #waitingReturn = 0
  /** trim(keep, true): the next take of the last idle one refills at that one's give, not at once. */
  #refillOnGive = false
  #stuck = 0
  #created = 0
  #destroyed = 0
  #refill: ReturnType<typeof setTimeout> | undefined
  /** Woken when a start settles (made, failed, timed out) or the pool closes: `ready` waits on it. */
  readonly #settled: Array<() => void> = []
  #closed = false

  constructor(backend: WarmPoolBackend<R>, options: WarmPoolOptions) {
    this.#backend = backend
    this.#o = options
  }

  get closed(): boolean {
    return this.#closed
  }

  counts(): PoolCounts {
    return {
      starting: this.#starting,
      idle: this.#idle.length,
      busy: this.#busy.size,
      stopping: this.#stopping.size,
      waiting: this.#waiters.length,
      returning: this.#returning.size,
      stuck: this.#stuck,
      created: this.#created,
      destroyed: this.#destroyed,
    }
  }

  /** Times `resource` was given back (0 while on its first use). */
  uses(resource: R): number {
    return this.#busy.get(resource)?.uses ?? this.#idle.find((e) => e.resource === resource)?.uses ?? 0
  }

  /** The idle resources, in the order they were given back (for upkeep; they stay idle). */
  idleResources(): R[] {
    return this.#idle.map((e) => e.resource)
  }

  /** An idle resource now, else undefined: never waits, never starts one for itself (the refill still runs). */
  takeIdle(): R | undefined {
    if (this.#closed) return undefined
    for (let entry = this.#nextIdle(); entry !== undefined; entry = this.#nextIdle()) {
      clearTimeout(entry.timer)
      if (!this.#fit(entry.resource)) {
        this.#destroy(entry.resource)
        continue
      }
      this.#busy.set(entry.resource, entry)
      this.#refillSoon()
      return entry.resource
    }
    return undefined
  }

  /** A resource: an idle one, else the next one ready (started for this take when there is room). */
  take(signal?: AbortSignal): Promise<Taken<R>> {
    if (this.#closed) return Promise.resolve(this.#failure('closed'))
    if (signal?.aborted) return Promise.resolve(this.#failure('aborted'))
    const idle = this.takeIdle()
    if (idle !== undefined) return Promise.resolve({ ok: true, resource: idle })
    return new Promise((resolve) => {
      const waiter: Waiter<R> = {
        resolve: (taken) => {
          signal?.removeEventListener('abort', onAbort)
          this.#endReturnWait(waiter)
          resolve(taken)
        },
      }
      const onAbort = () => {
        const at = this.#waiters.indexOf(waiter)
        if (at >= 0) this.#waiters.splice(at, 1)
        waiter.resolve(this.#failure('aborted'))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiters.push(waiter)
      if (this.#returning.size > 0 && (this.#o.returnWaitMs ?? 0) > 0) this.#waitForReturn(waiter)
      // Covers the warm count and every take waiting, room permitting (the rest wait for a give or a loss).
      this.fill()
    })
  }

  /** `resource` (busy) is on its way back: counted ready for the refill, and awaited by takes (returnWaitMs). */
  returning(resource: R): void {
    if (this.#busy.has(resource)) this.#returning.add(resource)
  }

  /** One use ended: keep it for the next take when it can be (true), else destroy it (false). */
  give(resource: R, reusable = true): boolean {
    const entry = this.#busy.get(resource)
    if (entry === undefined) return false
    this.#busy.delete(resource)
    this.#returning.delete(resource)
    entry.uses++
    const kept = this.#giveBack(resource, entry, reusable)
    this.#refillAfterGive()
    return kept
  }

  #giveBack(resource: R, entry: Entry<R>, reusable: boolean): boolean {
    const keepIt =
      reusable &&
      !this.#closed &&
      entry.uses < (this.#o.maxUses ?? Number.POSITIVE_INFINITY) &&
      this.#fit(resource) &&
      this.#idle.length < count(this.#o.maxIdle, this.#o.max)
    if (!keepIt) {
      this.#destroy(resource)
      this.#afterLoss()
      return false
    }
    const waiter = this.#waiters.shift()
    if (waiter) {
      this.#busy.set(resource, entry)
      waiter.resolve({ ok: true, resource })
    } else this.#toIdle(entry)
    return true
  }

  /** End `resource` whatever its state (it died, or its holder had to stop it); the gap is refilled. */
  retire(resource: R): void {
    const at = this.#idle.findIndex((e) => e.resource === resource)
    const entry = at >= 0 ? this.#idle.splice(at, 1)[0] : this.#busy.get(resource)
    if (entry === undefined) return
    clearTimeout(entry.timer)
    this.#busy.delete(resource)
    this.#returning.delete(resource)
    this.#destroy(resource)
    this.#afterLoss()
    this.#refillAfterGive()
  }

  /** The holder keeps `resource` for good and ends it itself: the pool forgets it. */
  detach(resource: R): void {
    this.#returning.delete(resource)
    // Its place is refilled as after a take (refillDelayMs): it is still in use, by its holder.
    if (this.#busy.delete(resource)) this.#afterLoss(true)
    this.#refillAfterGive()
  }

  /** Start creates until `warm()` resources are idle or starting (and anyone waiting is covered); `soon`: after refillDelayMs. */
  fill(soon = false): void {
    if (soon) return this.#refillSoon()
    if (this.#closed) return
    // A returning resource stands for one of the warm count; a take waiting for one (returnWaitMs) wants none yet.
    const warm = Math.max(count(this.#o.warm, 0) - this.#returning.size, 0)
    const wanted = warm + this.#waiters.length - this.#waitingReturn
    while (this.#idle.length + this.#starting < wanted && this.#live() < this.#o.max) this.#start()
  }

  /**
   * Destroy idle resources now, the least recently given back first, until `keep` are left. `refillOnGive`:
   * the take that empties the idle ones leaves the refill to that resource's give (a start would compete
   * with its use; in a steady sequence the give alone restores the count).
   */
  trim(keep = 0, refillOnGive = false): void {
    if (refillOnGive) this.#refillOnGive = true
    const gone = this.#idle.splice(0, Math.max(0, this.#idle.length - keep))
    for (const entry of gone) {
      clearTimeout(entry.timer)
      this.#destroy(entry.resource)
    }
  }

  /** Resolves true once `want` resources are idle, false when starts fail, the pool closes or `timeoutMs` passes. */
  async ready(want: number, timeoutMs: number): Promise<boolean> {
    this.fill()
    const until = Date.now() + timeoutMs
    // No fill inside the wait: a create that failed is not retried on its own (a dead engine would restart
    // creates every tick and keep this wait, and the caller's start, alive until the timeout).
    while (this.#idle.length < want && this.#starting > 0 && !this.#closed && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, until - Date.now())
        this.#settled.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return this.#idle.length >= want
  }

  /** Stop handing out; end everything this pool holds. Resolves when every destroy has ended or timed out. */
  async close(): Promise<PoolCounts> {
    this.#closed = true
    clearTimeout(this.#refill)
    this.#returning.clear()
    this.#wake()
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(this.#failure('closed'))
    for (const entry of this.#idle.splice(0)) {
      clearTimeout(entry.timer)
      this.#destroy(entry.resource)
    }
    for (const resource of [...this.#busy.keys()]) {
      this.#busy.delete(resource)
      this.#destroy(resource)
    }
    // Starting ones are destroyed as they arrive (#arrived): wait for those within their start timeout.
    // The poll's timer is cleared each time: a closed pool must leave nothing holding the event loop.
    while (this.#starting > 0 || this.#stopping.size > 0) {
      let poll: ReturnType<typeof setTimeout> | undefined
      await Promise.race([...this.#stopping, new Promise((r) => (poll = setTimeout(r, 10)))])
      clearTimeout(poll)
    }
    return this.counts()
  }

  #live(): number {
    return this.#starting + this.#idle.length + this.#busy.size
  }

  #nextIdle(): Entry<R> | undefined {
    return this.#o.takeOldest ? this.#idle.shift() : this.#idle.pop()
  }

  /** No create for `waiter` for returnWaitMs: a returning resource is likelier to come first, and warm. */
  #waitForReturn(waiter: Waiter<R>): void {
    this.#waitingReturn++
    waiter.returnWait = setTimeout(() => {
      this.#endReturnWait(waiter)
      this.fill()
    }, this.#o.returnWaitMs)
  }

  #endReturnWait(waiter: Waiter<R>): void {
    if (waiter.returnWait === undefined) return
    clearTimeout(waiter.returnWait)
    waiter.returnWait = undefined
    this.#waitingReturn--
  }

  #refillAfterGive(): void {
    if (!this.#refillOnGive) return
    this.#refillOnGive = false
    this.fill()
  }

  #fit(resource: R): boolean {
    try {
      return this.#backend.healthy?.(resource) ?? true
    } catch {
      return false
    }
  }

  #failure(code: TakeFailure['code'], why?: string): TakeFailure {
    const message =
      code === 'closed'
        ? `${this.#o.name} is closed`
        : code === 'aborted'
          ? `the wait for ${this.#o.name} was aborted`
          : code === 'start_timeout'
            ? `${this.#o.name} did not start within ${this.#o.startTimeoutMs} ms`
            : (why ?? `${this.#o.name} could not start`)
    return { ok: false, code, message }
  }

  #start(): void {
    this.#starting++
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      this.#starting--
      this.#waiters.shift()?.resolve(this.#failure('start_timeout'))
      this.#wake()
    }, this.#o.startTimeoutMs)
    timer.unref?.()
    let made: Promise<Created<R>>
    try {
      made = this.#backend.create()
    } catch (error) {
      made = Promise.reject(error)
    }
    void made
      .catch((error: unknown): Created<R> => ({ ok: false, message: error instanceof Error ? error.message : String(error) }))
      .then((created) => {
        clearTimeout(timer)
        if (created.ok) this.#created++
        if (settled) {
          // Past its start timeout: nobody counts on it any more.
          if (created.ok) this.#destroy(created.resource)
          return
        }
        settled = true
        this.#starting--
        this.#arrived(created)
        this.#wake()
      })
  }

  #wake(): void {
    for (const wake of this.#settled.splice(0)) wake()
  }

  #arrived(created: Created<R>): void {
    if (!created.ok) {
      // One failure answers one waiting take; the others keep theirs (a slot it held is free again).
      this.#waiters.shift()?.resolve(this.#failure('start_failed', created.message))
      if (!this.#closed && this.#waiters.length > this.#starting && this.#live() < this.#o.max) this.#start()
      return
    }
    if (this.#closed) return this.#destroy(created.resource)
    const entry: Entry<R> = { resource: created.resource, uses: 0, timer: undefined }
    const waiter = this.#waiters.shift()
    if (waiter) {
      this.#busy.set(entry.resource, entry)
      return waiter.resolve({ ok: true, resource: entry.resource })
    }
    // Nobody waits and the idle are enough (maxIdle lowered while it started): it is not needed.
    if (this.#idle.length >= count(this.#o.maxIdle, this.#o.max)) return this.#destroy(entry.resource)
    this.#toIdle(entry)
    this.#backend.standby?.(entry.resource)
  }

  #toIdle(entry: Entry<R>): void {
    this.#idle.push(entry)
    this.#armTrim(entry)
  }

  #armTrim(entry: Entry<R>): void {
    clearTimeout(entry.timer)
    entry.timer = setTimeout(
      () => {
        entry.timer = undefined
        const at = this.#idle.indexOf(entry)
        if (at < 0) return
        if (this.#idle.length <= count(this.#o.keep, 0)) return this.#armTrim(entry)
        this.#idle.splice(at, 1)
        this.#destroy(entry.resource)
      },
      count(this.#o.idleMs, 0),
    )
    entry.timer.unref?.()
  }

  /** A resource left: waiting takes get a new one (room permitting), and the warm count is refilled. */
  #afterLoss(soon = false): void {
    if (this.#closed) return
    if (this.#waiters.length > this.#starting && this.#live() < this.#o.max) this.#start()
    this.fill(soon)
  }

  #refillSoon(): void {
    if (this.#refillOnGive && this.#idle.length === 0) return
    const delay = this.#o.refillDelayMs ?? 0
    if (delay <= 0) return this.fill()
    if (this.#refill !== undefined) return
    this.#refill = setTimeout(() => {
      this.#refill = undefined
      this.fill()
    }, delay)
    this.#refill.unref?.()
  }

  #destroy(resource: R): void {
    let ended: Promise<unknown>
    try {
      ended = Promise.resolve(this.#backend.destroy(resource))
    } catch (error) {
      ended = Promise.reject(error)
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(resolve, this.#o.stopTimeoutMs, 'late')
      timer.unref?.()
    })
    const done: Promise<void> = Promise.race([ended.catch(() => 'failed'), late]).then((how) => {
      clearTimeout(timer)
      if (how === 'late') this.#stuck++
      else this.#destroyed++
      this.#stopping.delete(done)
    })
    this.#stopping.add(done)
  }
}

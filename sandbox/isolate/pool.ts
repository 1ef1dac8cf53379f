/**
 * Warm isolates, inside the child process, on the shared lifecycle (vocabulary/warm-pool.ts): one per memory
 * limit. An isolate costs a couple of milliseconds to create and the prelude has to be compiled into it; a
 * context costs well under one. So isolates are made ahead of time and, when a run ended cleanly, reused with
 * a fresh context. Anything that hit a limit is disposed.
 *
 * The fresh context itself (`realm.ts`: created, locked down, prelude evaluated) is prepared ahead too, on
 * the isolate's own thread while the isolate is idle: when a new isolate goes idle (`standby`) and again
 * each time one comes back clean (`returned`). A run takes it (`takeRealm`), or makes one itself when none
 * is ready: an isolate made for a run that waited for it gets none ahead.
 *
 * What is particular to isolates, as the lifecycle's options: a run's isolate is checked on its way back
 * (`returning`, and a run finding none idle waits RETURN_WAIT_MS for it: the check takes well under a
 * millisecond, a new isolate several, and it would start cold); the one given back longest ago goes first
 * (its realm has had the longest to be prepared); while runs overlap, one is kept for each (#maxIdle). When
 * nothing has run for a while (quiet.ts) the pool keeps only the warm count, compacted (trimQuiet).
 */
import { WarmPool } from '../../vocabulary/warm-pool.js'
import { compactIdle, createPooled, disposePooled, type PooledIsolate, prepareAhead, returned } from './pooled-isolate.js'
import type { ChildConfig } from './protocol.js'

/** Memory limits kept warm at once; an unusual limit should not pin isolates forever. */
const MAX_WARM_KEYS = 3
/** How long a run with no idle isolate waits for one being returned before it makes a new one. */
const RETURN_WAIT_MS = 5
/**
 * How long after runs last overlapped this widely the pool keeps an isolate for each of them. Runs that
 * overlap and end at different moments saw few others out as they ended, and their isolates were disposed
 * as too many, then made again cold for the next overlapping runs (most of a run's CPU in the child went
 * to creating isolates and compiling the prelude into them).
 */
const BURST_KEEP_MS = 1000
/** Making an isolate and compiling the guest into it: one that has not ended by then never will. */
const START_TIMEOUT_MS = 30_000
/** Disposing is synchronous; the lifecycle asks for a bound all the same. */
const STOP_TIMEOUT_MS = 1_000

type Isolates = WarmPool<PooledIsolate>

export class IsolatePool {
  readonly #config: ChildConfig
  /** One lifecycle per memory limit, the most recently used last. */
  readonly #pools = new Map<number, Isolates>()
  /** Memory limits past MAX_WARM_KEYS: nothing kept warm, dropped once none of theirs is out. */
  readonly #stale = new Set<number>()
  /** The most runs out at once per memory limit, and when that was last reached (BURST_KEEP_MS). */
  readonly #burst = new Map<number, { runs: number; at: number }>()
  /** The config (realm.ts's armRealm) the last two runs had, if the same: realms prepared ahead are armed for it. */
  #expected: string | undefined
  #lastConfig: string | undefined

  constructor(config: ChildConfig) {
    this.#config = config
  }

  /**
   * A run with this config is starting. After two runs with the same, the next realms are armed ahead for it
   * (a runtime's tools rarely change); runs that alternate between configs get unarmed realms, as a realm
   * armed for the wrong one is let go unused.
   */
  expect(config: string): void {
    this.#expected = config === this.#lastConfig ? config : undefined
    this.#lastConfig = config
  }

  /** A clean isolate for one run: a warm one if there is one, else a new one. Refills in the background. */
  async acquire(memoryMb: number): Promise<PooledIsolate> {
    const pool = this.#pool(memoryMb)
    const taken = await pool.take()
    if (!taken.ok) throw new Error(taken.message)
    const runs = out(pool)
    const burst = this.#burst.get(memoryMb)
    if (burst === undefined) this.#burst.set(memoryMb, { runs, at: Date.now() })
    else if (runs >= burst.runs || Date.now() - burst.at > BURST_KEEP_MS) Object.assign(burst, { runs, at: Date.now() })
    const entry = taken.resource
    if (entry.preparing) await entry.preparing
    return entry
  }

  /**
   * Take the isolate back after a run: kept only if healthy and small (pooled-isolate.ts `returned`), its
   * next realm then prepared. `idle`: the run proved the isolate idle itself (isolate-run.ts's
   * idleForCertain), so its next context is made here.
   */
  async release(entry: PooledIsolate, reusable: boolean, idle = false): Promise<void> {
    entry.runs++
    const pool = this.#pools.get(entry.memoryMb)
    if (pool === undefined) return disposePooled(entry)
    let back: Awaited<ReturnType<typeof returned>>
    if (reusable && !entry.isolate.isDisposed) {
      // On its way back: a fill meanwhile must not count it as missing (the next run often arrives first, and
      // took the last idle one; a fill then made a new isolate, and this warm one was let go as one too many).
      pool.returning(entry)
      back = await returned(entry, idle, this.#config.maxHeapFraction)
    }
    if (pool.give(entry, back !== undefined)) prepareAhead(entry, this.#expected, back?.collect, back?.context)
    // No run out with this memory limit: keep the usual one over the warm count (and a recent burst's), no more.
    pool.trim(this.#keep(entry.memoryMb, pool))
    this.#dropIfUnused(entry.memoryMb, pool)
  }

  /** Top up the warm isolates for one memory limit, without blocking the caller. */
  fill(memoryMb: number): void {
    this.#pool(memoryMb).fill()
  }

  /**
   * Nothing has run for a while (quiet.ts): keep `warmIsolates` idle isolates per memory limit, the ones
   * returned last, and compact their heaps (compactIdle); the rest are disposed. The one over the warm count
   * is made again when the next run has given the kept one back (trim's refillOnGive): made during that run,
   * on this thread, it had doubled the run's time. Declines (false) while any isolate is out, on its way back
   * or being made: the caller tries again later.
   */
  trimQuiet(): Promise<void>[] | false {
    for (const pool of this.#pools.values()) {
      const counts = pool.counts()
      if (counts.busy > 0 || counts.starting > 0) return false
    }
    const done: Promise<void>[] = []
    for (const pool of this.#pools.values()) {
      pool.trim(this.#config.warmIsolates, true)
      for (const entry of pool.idleResources()) done.push(compactIdle(entry))
    }
    return done
  }

  /** Dispose of every isolate, idle or out (the child is ending). */
  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()))
    this.#pools.clear()
  }

  #pool(memoryMb: number): Isolates {
    const pool = this.#pools.get(memoryMb) ?? this.#make(memoryMb)
    this.#pools.delete(memoryMb)
    this.#pools.set(memoryMb, pool)
    this.#stale.delete(memoryMb)
    let warmKeys = this.#pools.size - this.#stale.size
    for (const [key, old] of this.#pools) {
      if (warmKeys <= MAX_WARM_KEYS) break
      if (this.#stale.has(key)) continue
      this.#stale.add(key)
      warmKeys--
      old.trim(0)
      this.#dropIfUnused(key, old)
    }
    return pool
  }

  #make(memoryMb: number): Isolates {
    const warm = () => (this.#stale.has(memoryMb) ? 0 : this.#config.warmIsolates)
    const pool: Isolates = new WarmPool<PooledIsolate>(
      {
        create: async () => {
          // Off the taker's path: the isolate is made on this thread, synchronously.
          await new Promise((resolve) => setImmediate(resolve))
          return { ok: true, resource: await createPooled(memoryMb) }
        },
        destroy: disposePooled,
        healthy: (entry) => !entry.isolate.isDisposed,
        standby: (entry) => prepareAhead(entry, this.#expected),
      },
      {
        name: 'the isolate pool',
        warm,
        max: Number.POSITIVE_INFINITY,
        maxIdle: () => (this.#stale.has(memoryMb) ? 0 : this.#maxIdle(memoryMb, pool)),
        // A burst's isolates are let go once it is BURST_KEEP_MS old, if no run is out then.
        idleMs: BURST_KEEP_MS + 10,
        keep: () => this.#keep(memoryMb, pool),
        maxUses: this.#config.maxRunsPerIsolate,
        startTimeoutMs: START_TIMEOUT_MS,
        stopTimeoutMs: STOP_TIMEOUT_MS,
        takeOldest: true,
        returnWaitMs: RETURN_WAIT_MS,
      },
    )
    return pool
  }

  /**
   * Idle isolates held at most: one over the warm count, so a run's isolate and the one made while it ran
   * both stay (in a steady sequence of runs nothing is created at all); while other runs are out, one for
   * each of them too, and for a recent burst as many as it had out (runs that overlap found none idle, made
   * cold ones and had them disposed on return).
   */
  #maxIdle(memoryMb: number, pool: Isolates): number {
    const runs = out(pool)
    return Math.max(Math.max(this.#config.warmIsolates, runs) + 1, this.#burstWidth(memoryMb) - runs)
  }

  /** Idle isolates kept when none is out (while any is, all are). */
  #keep(memoryMb: number, pool: Isolates): number {
    if (this.#stale.has(memoryMb)) return 0
    if (pool.counts().busy > 0) return Number.POSITIVE_INFINITY
    return Math.max(this.#config.warmIsolates + 1, this.#burstWidth(memoryMb))
  }

  /** How many runs were out at once within the last BURST_KEEP_MS (0 when longer ago). */
  #burstWidth(memoryMb: number): number {
    const burst = this.#burst.get(memoryMb)
    return burst && Date.now() - burst.at <= BURST_KEEP_MS ? burst.runs : 0
  }

  #dropIfUnused(memoryMb: number, pool: Isolates): void {
    if (!this.#stale.has(memoryMb)) return
    const counts = pool.counts()
    if (counts.busy + counts.waiting + counts.idle > 0) return
    this.#stale.delete(memoryMb)
    this.#pools.delete(memoryMb)
    this.#burst.delete(memoryMb)
    void pool.close()
  }
}

/** Runs out on isolates of `pool` (taken and not yet on their way back). */
function out(pool: Isolates): number {
  const counts = pool.counts()
  return counts.busy - counts.returning
}

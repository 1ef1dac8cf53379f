/**
 * Warm isolates, inside the child process. An isolate costs a couple of milliseconds to create and the
 * prelude has to be compiled into it; a context costs well under one. So isolates are made ahead of time
 * and, when a run ended cleanly, reused with a fresh context. Anything that hit a limit is disposed.
 *
 * The fresh context itself (`realm.ts`: created, locked down, prelude evaluated) is prepared ahead too, on
 * the isolate's own thread while the isolate is idle: when the isolate is made and again each time it comes
 * back clean. A run takes it (`takeRealm`), or makes one itself when none is ready.
 *
 * An isolate that comes back with more than COLLECT_ABOVE_BYTES of heap (past runs' contexts, as garbage)
 * first has its garbage collected and its pages handed back (collect.ts), then its next realm prepared
 * (pooled-isolate.ts).
 *
 * When nothing has run for a while (quiet.ts) the pool keeps only the warm count, compacted (trimQuiet).
 */
import type ivm from 'isolated-vm'
import { collectionFor, compactIdle, createPooled, type PooledIsolate, prepareAhead } from './pooled-isolate.js'
import type { ChildConfig } from './protocol.js'

const MB = 1024 * 1024
/** Memory limits kept warm at once; an unusual limit should not pin isolates forever. */
const MAX_WARM_KEYS = 3
/**
 * How long a returned isolate may take to answer. One that does not is still running what the program left
 * behind as it ended (an endless chain of promise callbacks queued by a `toJSON` of its value): its run's
 * watchdogs are gone, so it is disposed here, which stops it; kept, it would spin a core for good.
 */
const IDLE_ANSWER_MS = 2000
/** How long a run with no idle isolate waits for one being returned before it makes a new one. */
const RETURN_WAIT_MS = 5
/**
 * How long after runs last overlapped this widely the pool keeps an isolate for each of them. Runs that
 * overlap and end at different moments saw few others out as they ended, and their isolates were disposed
 * as too many, then made again cold for the next overlapping runs (8 in flight for one caller: ~5 ms of the
 * child's CPU a run, most of it creating isolates and compiling the prelude into them).
 */
const BURST_KEEP_MS = 1000

export class IsolatePool {
  readonly #config: ChildConfig
  /** Idle isolates by memory limit, most recently used key last. */
  readonly #idle = new Map<number, PooledIsolate[]>()
  readonly #filling = new Set<number>()
  /** Isolates whose heap is being checked after a run, by memory limit (release). */
  readonly #returning = new Map<number, number>()
  /** Isolates out on runs, by memory limit: while runs overlap, as many returned ones stay warm (release). */
  readonly #busy = new Map<number, number>()
  /** The most runs out at once per memory limit, and when that was last reached (BURST_KEEP_MS). */
  readonly #burst = new Map<number, { runs: number; at: number; trim: NodeJS.Timeout | undefined }>()
  /**
   * Memory limits trimmed when quiet (trimQuiet): the run that takes the last warm isolate leaves the refill to
   * its own release, so that making an isolate (on this thread, synchronously, ~1–2 ms) is not on its path.
   */
  readonly #refillAfterRelease = new Set<number>()
  /** Runs waiting (RETURN_WAIT_MS at most) for a returning isolate. */
  readonly #waiters: Array<() => void> = []
  /** The config (realm.ts's armRealm) the last two runs had, if the same: realms prepared ahead are armed for it. */
  #expected: string | undefined
  #lastConfig: string | undefined

  /**
   * A run with this config is starting. After two runs with the same, the next realms are armed ahead for it
   * (a runtime's tools rarely change); runs that alternate between configs get unarmed realms, as a realm
   * armed for the wrong one is let go unused.
   */
  expect(config: string): void {
    this.#expected = config === this.#lastConfig ? config : undefined
    this.#lastConfig = config
  }

  constructor(config: ChildConfig) {
    this.#config = config
  }

  /** A clean isolate for one run: a warm one if there is one, else a new one. Refills in the background. */
  async acquire(memoryMb: number): Promise<PooledIsolate> {
    const entry = await this.#take(memoryMb)
    const busy = (this.#busy.get(memoryMb) ?? 0) + 1
    this.#busy.set(memoryMb, busy)
    const burst = this.#burst.get(memoryMb)
    if (burst === undefined) this.#burst.set(memoryMb, { runs: busy, at: Date.now(), trim: undefined })
    else if (busy >= burst.runs || Date.now() - burst.at > BURST_KEEP_MS) Object.assign(burst, { runs: busy, at: Date.now() })
    return entry
  }

  async #take(memoryMb: number): Promise<PooledIsolate> {
    for (let waited = false; ; waited = true) {
      const list = this.#idle.get(memoryMb)
      const warm = list?.pop()
      this.#touch(memoryMb)
      if (!(warm && list?.length === 0 && this.#refillAfterRelease.has(memoryMb))) this.fill(memoryMb)
      if (warm) {
        if (warm.preparing) await warm.preparing
        return warm
      }
      // The last run's isolate is still having its heap checked (the next run often comes first): that
      // takes well under a millisecond, a new isolate several, and it would start cold. Wait for it, briefly.
      if (waited || !this.#returning.get(memoryMb)) return createPooled(memoryMb, undefined)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, RETURN_WAIT_MS)
        function done(): void {
          clearTimeout(timer)
          resolve()
        }
        this.#waiters.push(done)
      })
    }
  }

  /**
   * Take the isolate back after a run. A used isolate returns only if it is healthy and small. `idle`: the run
   * proved the isolate idle itself (isolate-run.ts's idleForCertain), so its next context is made here.
   */
  async release(entry: PooledIsolate, reusable: boolean, idle = false): Promise<void> {
    const busy = Math.max(0, (this.#busy.get(entry.memoryMb) ?? 1) - 1)
    if (busy > 0) this.#busy.set(entry.memoryMb, busy)
    else this.#busy.delete(entry.memoryMb)
    entry.runs++
    if (!reusable || entry.isolate.isDisposed || entry.runs >= this.#config.maxRunsPerIsolate) {
      dispose(entry)
      if (this.#refillAfterRelease.delete(entry.memoryMb)) this.fill(entry.memoryMb)
      return this.#trimWhenIdle(entry.memoryMb)
    }
    // While it is checked the isolate is on its way back: a fill meanwhile must not count it as missing
    // (the next run often arrives first, and took the last idle one; a fill then made a new isolate, and
    // this warm one was disposed as one too many when it came back).
    this.#returning.set(entry.memoryMb, (this.#returning.get(entry.memoryMb) ?? 0) + 1)
    // The next run's context is created first, on the isolate's thread, and its answer is the proof that the
    // isolate is idle: one still running what the program left behind does not answer (and is disposed).
    // Only this thread gives the isolate work, so its heap is then read here, synchronously: one round trip
    // to the isolate's thread after a run, where a heap check and then the context were two. A run that proved
    // the isolate idle itself (all of it ran on this thread, nothing was queued on the isolate's) skips that
    // round trip: the context is made here, synchronously (8 callers: the children's CPU per run ~0.91x).
    let healthy = false
    let collect: 'plain' | 'compact' | undefined
    let context: ivm.Context | undefined
    try {
      context = idle ? entry.isolate.createContextSync() : await answeredWithin(entry.isolate.createContext(), IDLE_ANSWER_MS)
      if (context !== undefined && !entry.isolate.isDisposed) {
        const heap = entry.isolate.getHeapStatisticsSync()
        healthy = heap.used_heap_size + heap.externally_allocated_size <= entry.memoryMb * MB * this.#config.maxHeapFraction
        collect = collectionFor(heap)
      }
    } catch {
      // disposed meanwhile
    }
    const left = (this.#returning.get(entry.memoryMb) ?? 1) - 1
    if (left > 0) this.#returning.set(entry.memoryMb, left)
    else this.#returning.delete(entry.memoryMb)
    const list = this.#idle.get(entry.memoryMb) ?? []
    // One over the warm count, so a run's isolate and the one made while it ran both stay: in a steady
    // sequence of runs nothing is created at all. While other runs are out, one for each of them too: runs
    // that overlap found none idle, made cold ones and had them disposed on return (8 in flight in one
    // child: 5.4 ms of the child's CPU a run, 2.4 ms in 8 children). Trimmed back when the last run ends.
    const out = this.#busy.get(entry.memoryMb) ?? 0
    const spare = list.length <= Math.max(this.#config.warmIsolates, out) || list.length + 1 + out <= this.#burstWidth(entry.memoryMb)
    if (!healthy || !spare || entry.isolate.isDisposed) {
      dispose(entry)
      // One that did not make it back leaves a gap a fill closes (a waiting run makes its own).
      this.fill(entry.memoryMb)
    } else {
      list.unshift(entry)
      this.#idle.set(entry.memoryMb, list)
      prepareAhead(entry, this.#expected, collect, context)
    }
    for (const wake of this.#waiters.splice(0)) wake()
    if (this.#refillAfterRelease.delete(entry.memoryMb)) this.fill(entry.memoryMb)
    this.#trimWhenIdle(entry.memoryMb)
  }

  /** No run out with this memory limit: keep the usual one over the warm count, dispose the rest. */
  #trimWhenIdle(memoryMb: number): void {
    if (this.#busy.get(memoryMb) || this.#returning.get(memoryMb)) return
    const list = this.#idle.get(memoryMb)
    const keep = Math.max(this.#config.warmIsolates + 1, this.#burstWidth(memoryMb))
    if (list && list.length > keep) list.splice(keep).forEach(dispose)
    // Kept for a recent burst: trimmed back once it is BURST_KEEP_MS old, if no run is out then.
    const burst = this.#burst.get(memoryMb)
    if (burst && list && list.length > this.#config.warmIsolates + 1 && burst.trim === undefined) {
      burst.trim = setTimeout(() => {
        burst.trim = undefined
        this.#trimWhenIdle(memoryMb)
      }, BURST_KEEP_MS + 10)
      burst.trim.unref?.()
    }
  }

  /** How many runs were out at once within the last BURST_KEEP_MS (0 when longer ago). */
  #burstWidth(memoryMb: number): number {
    const burst = this.#burst.get(memoryMb)
    return burst && Date.now() - burst.at <= BURST_KEEP_MS ? burst.runs : 0
  }

  /** Top up the warm isolates for one memory limit, one at a time, without blocking the caller. */
  fill(memoryMb: number): void {
    if (this.#filling.has(memoryMb) || this.#config.warmIsolates <= 0) return
    this.#filling.add(memoryMb)
    setImmediate(async () => {
      try {
        for (;;) {
          const list = this.#idle.get(memoryMb) ?? []
          if (list.length + (this.#returning.get(memoryMb) ?? 0) >= this.#config.warmIsolates) break
          const entry = await createPooled(memoryMb, { config: this.#expected })
          list.push(entry)
          this.#idle.set(memoryMb, list)
        }
      } catch {
        // Creating failed (out of memory?): the next acquire creates on demand and reports the failure.
      } finally {
        this.#filling.delete(memoryMb)
      }
    })
  }

  /**
   * Nothing has run for a while (quiet.ts): keep `warmIsolates` idle isolates per memory limit, the ones
   * returned last, and compact their heaps (compactIdle); the rest are disposed. The one over the warm count
   * is made again when the next run has released the kept one (#refillAfterRelease): made during that run,
   * on this thread, it had doubled the run's time (isolate sandbox alone after 7 s idle, 4 rounds each:
   * 3.98–4.18 ms vs 1.86–1.97 ms with the refill after it; untrimmed 1.87–2.36). Declines (false) while any
   * isolate is out, on its way back or being made: the caller tries again later.
   */
  trimQuiet(): Promise<void>[] | false {
    for (const out of this.#busy.values()) if (out > 0) return false
    if (this.#returning.size > 0 || this.#filling.size > 0) return false
    const done: Promise<void>[] = []
    for (const [memoryMb, list] of this.#idle) {
      this.#refillAfterRelease.add(memoryMb)
      list.splice(this.#config.warmIsolates).forEach(dispose)
      for (const entry of list) done.push(compactIdle(entry))
    }
    return done
  }

  disposeAll(): void {
    for (const list of this.#idle.values()) list.forEach(dispose)
    this.#idle.clear()
  }

  #touch(memoryMb: number): void {
    const list = this.#idle.get(memoryMb) ?? []
    this.#idle.delete(memoryMb)
    this.#idle.set(memoryMb, list)
    while (this.#idle.size > MAX_WARM_KEYS) {
      const [oldest, stale] = this.#idle.entries().next().value as [number, PooledIsolate[]]
      stale.forEach(dispose)
      this.#idle.delete(oldest)
    }
  }
}

/** `work`'s answer, or undefined if it did not come within `ms` (a late rejection is dropped). */
async function answeredWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  work.catch(() => {})
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

function dispose(entry: PooledIsolate): void {
  if (!entry.isolate.isDisposed) entry.isolate.dispose()
}

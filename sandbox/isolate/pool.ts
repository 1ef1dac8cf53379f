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
 * first has its garbage collected and its pages handed back (collect.ts), then its next realm prepared.
 */
import ivm from 'isolated-vm'
import { PRELUDE_SOURCE } from '../../sdk/prelude.js'
import { GLUE_FILENAME, GLUE_SOURCE } from './glue.js'
import { LOCKDOWN_FILENAME, LOCKDOWN_SOURCE } from './lockdown.js'
import { type Collect, collectorFor } from './collect.js'
import type { ChildConfig } from './protocol.js'
import { type Armed, armRealm, prepareRealm, prepareRealmSync, REALM_SETUP_TIMEOUT_MS, type Realm, releaseRealm, setUp } from './realm.js'

export const PRELUDE_FILENAME = 'codeact-prelude.js'
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
/**
 * An isolate returned with more heap than this (used + external) is collected before its next realm is
 * prepared. Collected, one holds ~0.7 MB and each run adds ~0.1 MB of garbage (its context): a collection
 * every ~25 runs of an isolate, on its own thread while it is idle (1 ms; 5 ms p50 at load 12–18). Measured
 * over 1,000 runs, the child's median RSS was 58 / 60 / 62 / 64 MB at 2 / 3 / 4 / 6 MB; at 2 MB an isolate
 * would be collected every few runs.
 */
export const COLLECT_ABOVE_BYTES = 3 * MB

export interface PooledIsolate {
  readonly isolate: ivm.Isolate
  /** The lockdown (`lockdown.ts`), compiled once per isolate; the first thing run in each fresh context. */
  readonly lockdown: ivm.Script
  /** The prelude, compiled once per isolate; run in each fresh context. */
  readonly prelude: ivm.Script
  /** The glue's setup (`glue.ts`), compiled once per isolate; run in each fresh context after the prelude. */
  readonly glue: ivm.Script
  readonly memoryMb: number
  runs: number
  /** A realm prepared ahead for the next run (never used by any run yet). */
  ready: Realm | undefined
  /** Set while a realm is being prepared on the isolate's thread; never rejects. */
  preparing: Promise<void> | undefined
  /** Its garbage collector (collect.ts), made at its first collection; null if V8 would not give one. */
  collect?: Collect | null
}

/**
 * The prepared realm of `entry` for the run that took it, armed for its `config` (realm.ts), or one made or
 * armed now: a realm armed for another config is let go unused (throws what isolated-vm throws).
 */
export function takeRealm(entry: PooledIsolate, config: string, timeoutMs: number): Realm & { armed: Armed } {
  let realm = entry.ready
  entry.ready = undefined
  if (realm?.armed && realm.armed.config !== config) {
    releaseRealm(realm, entry.isolate)
    realm = undefined
  }
  realm ??= prepareRealmSync(entry, timeoutMs)
  try {
    realm.armed ??= armRealm(realm, config, timeoutMs)
  } catch (e) {
    releaseRealm(realm, entry.isolate)
    throw e
  }
  return realm as Realm & { armed: Armed }
}

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
      this.fill(memoryMb)
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

  /** Take the isolate back after a run. A used isolate returns only if it is healthy and small. */
  async release(entry: PooledIsolate, reusable: boolean): Promise<void> {
    const busy = Math.max(0, (this.#busy.get(entry.memoryMb) ?? 1) - 1)
    if (busy > 0) this.#busy.set(entry.memoryMb, busy)
    else this.#busy.delete(entry.memoryMb)
    entry.runs++
    if (!reusable || entry.isolate.isDisposed || entry.runs >= this.#config.maxRunsPerIsolate) {
      dispose(entry)
      return this.#trimWhenIdle(entry.memoryMb)
    }
    // While it is checked the isolate is on its way back: a fill meanwhile must not count it as missing
    // (the next run often arrives first, and took the last idle one; a fill then made a new isolate, and
    // this warm one was disposed as one too many when it came back).
    this.#returning.set(entry.memoryMb, (this.#returning.get(entry.memoryMb) ?? 0) + 1)
    // The next run's context is created first, on the isolate's thread, and its answer is the proof that the
    // isolate is idle: one still running what the program left behind does not answer (and is disposed).
    // Only this thread gives the isolate work, so its heap is then read here, synchronously: one round trip
    // to the isolate's thread after a run, where a heap check and then the context were two.
    let healthy = false
    let used = 0
    let context: ivm.Context | undefined
    try {
      context = await answeredWithin(entry.isolate.createContext(), IDLE_ANSWER_MS)
      if (context !== undefined && !entry.isolate.isDisposed) {
        const heap = entry.isolate.getHeapStatisticsSync()
        used = heap.used_heap_size + heap.externally_allocated_size
        healthy = used <= entry.memoryMb * MB * this.#config.maxHeapFraction
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
      prepareAhead(entry, this.#expected, used > COLLECT_ABOVE_BYTES, context)
    }
    for (const wake of this.#waiters.splice(0)) wake()
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

/** A new isolate with its scripts compiled; `ahead`: with a realm prepared (and armed for `ahead.config`) for its first run. */
async function createPooled(memoryMb: number, ahead: { config: string | undefined } | undefined): Promise<PooledIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb })
  try {
    const lockdown = await isolate.compileScript(LOCKDOWN_SOURCE, { filename: LOCKDOWN_FILENAME })
    const prelude = await isolate.compileScript(PRELUDE_SOURCE, { filename: PRELUDE_FILENAME })
    const glue = await isolate.compileScript(GLUE_SOURCE, { filename: GLUE_FILENAME })
    const entry: PooledIsolate = { isolate, lockdown, prelude, glue, memoryMb, runs: 0, ready: undefined, preparing: undefined }
    if (ahead) prepareAhead(entry, ahead.config)
    return entry
  } catch (e) {
    isolate.dispose()
    throw e
  }
}

/**
 * Prepare the next run's realm on the isolate's thread, armed for `config` when one is known; a failure
 * leaves none (the run makes its own and reports why). `collect`: collect the isolate's garbage first.
 * `context`: a fresh context made for it already (release), set up here at once unless a collection comes first.
 */
function prepareAhead(entry: PooledIsolate, config: string | undefined, collect = false, context?: ivm.Context): void {
  if (entry.ready || entry.preparing || entry.isolate.isDisposed) {
    if (context && !entry.isolate.isDisposed) releaseQuietly(context)
    return
  }
  if (collect && entry.collect === undefined) entry.collect = collectorFor(entry.isolate) ?? null
  const collected = collect && entry.collect ? entry.collect() : undefined
  const ready = (realm: Realm): void => {
    if (entry.isolate.isDisposed) return
    if (config !== undefined) {
      try {
        realm.armed = armRealm(realm, config, REALM_SETUP_TIMEOUT_MS)
      } catch {
        // A setup that failed half-way leaves no realm to use: the run makes its own.
        releaseRealm(realm, entry.isolate)
        return
      }
    }
    entry.ready = realm
  }
  if (context && !collected) {
    try {
      ready(setUp(entry, context))
    } catch {
      // the run makes its own
    }
    return
  }
  const made = collected ? collected.then(() => (context ? setUp(entry, context) : prepareRealm(entry))) : prepareRealm(entry)
  entry.preparing = made.then(
    (realm) => {
      entry.preparing = undefined
      ready(realm)
    },
    () => {
      entry.preparing = undefined
    },
  )
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

function releaseQuietly(context: ivm.Context): void {
  try {
    context.release()
  } catch {
    // disposed in between
  }
}

function dispose(entry: PooledIsolate): void {
  if (!entry.isolate.isDisposed) entry.isolate.dispose()
}

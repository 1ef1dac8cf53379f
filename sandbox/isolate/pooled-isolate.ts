/**
 * One pooled isolate inside the child process: made with the runtime's three scripts compiled into it
 * (`createPooled`), its next realm prepared ahead while it is idle (`prepareAhead`, after a collection of
 * past runs' garbage when its heap has grown), and that realm taken by the run it goes to (`takeRealm`).
 * The pool (pool.ts) decides which isolate goes where and when one is let go.
 */
import ivm from 'isolated-vm'
import { type Collect, collectorFor } from './collect.js'
import {
  type Armed,
  armRealm,
  compileGuest,
  prepareRealm,
  prepareRealmSync,
  REALM_SETUP_TIMEOUT_MS,
  type Realm,
  releaseRealm,
  setUp,
} from './realm.js'

const MB = 1024 * 1024
/**
 * An isolate returned with more heap than this (used + external) is collected before its next realm is
 * prepared. Collected, one holds ~0.7 MB and each run adds ~0.1 MB of garbage (its context): a collection
 * every ~25 runs of an isolate, on its own thread while it is idle (1 ms; 5 ms p50 at load 12–18). Measured
 * over 1,000 runs, the child's median RSS was 58 / 60 / 62 / 64 MB at 2 / 3 / 4 / 6 MB; at 2 MB an isolate
 * would be collected every few runs.
 */
export const COLLECT_ABOVE_BYTES = 3 * MB
/**
 * A collection compacts (collect.ts) only when the heap's resident pages exceed what it uses by more than
 * this: then something left pages partly used, which only moving their live objects hands back. A run's
 * garbage is its whole context, so in steady state a plain collection leaves the heap as small (resident
 * ~1.5 MB over used) and a compacting one only cost page faults.
 */
const COMPACT_SLACK_BYTES = 8 * MB
/**
 * How long a returned isolate may take to answer. One that does not is still running what the program left
 * behind as it ended (an endless chain of promise callbacks queued by a `toJSON` of its value): its run's
 * watchdogs are gone, so the pool disposes of it, which stops it; kept, it would spin a core for good.
 */
const IDLE_ANSWER_MS = 2000

/** What an isolate's next preparation collects first (`prepareAhead`), from its heap after a run. */
export function collectionFor(heap: ivm.HeapStatistics): 'plain' | 'compact' | undefined {
  const used = heap.used_heap_size + heap.externally_allocated_size
  if (used <= COLLECT_ABOVE_BYTES) return undefined
  return heap.total_physical_size - heap.used_heap_size > COMPACT_SLACK_BYTES ? 'compact' : 'plain'
}

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

/** A new isolate with its scripts compiled (its first realm: prepareAhead, or the run's own). */
export async function createPooled(memoryMb: number): Promise<PooledIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb })
  try {
    const { lockdown, prelude, glue } = await compileGuest(isolate)
    return { isolate, lockdown, prelude, glue, memoryMb, runs: 0, ready: undefined, preparing: undefined }
  } catch (e) {
    isolate.dispose()
    throw e
  }
}

export function disposePooled(entry: PooledIsolate): void {
  if (!entry.isolate.isDisposed) entry.isolate.dispose()
}

/**
 * An isolate back from a run, checked: its next context made (on the isolate's thread, unless the run proved
 * it idle itself: then here) and its heap read; undefined when it is not fit to keep. The context's answer
 * is the proof that the isolate is idle: one still running what the program left behind does not answer.
 * Only this thread gives the isolate work, so its heap is then read here, synchronously: one round trip to
 * the isolate's thread after a run, where a heap check and then the context were two.
 */
export async function returned(
  entry: PooledIsolate,
  idle: boolean,
  maxHeapFraction: number,
): Promise<{ context: ivm.Context; collect: 'plain' | 'compact' | undefined } | undefined> {
  try {
    const context = idle ? entry.isolate.createContextSync() : await answeredWithin(entry.isolate.createContext(), IDLE_ANSWER_MS)
    if (context === undefined || entry.isolate.isDisposed) return undefined
    const heap = entry.isolate.getHeapStatisticsSync()
    if (heap.used_heap_size + heap.externally_allocated_size > entry.memoryMb * MB * maxHeapFraction) return undefined
    return { context, collect: collectionFor(heap) }
  } catch {
    return undefined // disposed meanwhile
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

/**
 * Prepare the next run's realm on the isolate's thread, armed for `config` when one is known; a failure
 * leaves none (the run makes its own and reports why). `collect`: collect the isolate's garbage first
 * (compacting or not: collectionFor).
 * `context`: a fresh context made for it already (release), set up here at once unless a collection comes first.
 */
export function prepareAhead(entry: PooledIsolate, config: string | undefined, collect?: 'plain' | 'compact', context?: ivm.Context): void {
  if (entry.ready || entry.preparing || entry.isolate.isDisposed) {
    if (context && !entry.isolate.isDisposed) releaseQuietly(context)
    return
  }
  if (collect && entry.collect === undefined) entry.collect = collectorFor(entry.isolate) ?? null
  const collected = collect && entry.collect ? entry.collect(collect === 'compact') : undefined
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

/**
 * A compacting collection of an idle isolate, on its own thread (the pool's quiet trim). Its realm prepared
 * ahead stays (the next run takes it); a run that takes the isolate meanwhile waits for the collection as it
 * waits for a preparation (`preparing`). One already being prepared is left alone.
 */
export function compactIdle(entry: PooledIsolate): Promise<void> {
  if (entry.preparing || entry.isolate.isDisposed) return Promise.resolve()
  if (entry.collect === undefined) entry.collect = collectorFor(entry.isolate) ?? null
  if (!entry.collect) return Promise.resolve()
  const done = entry.collect(true).then(() => {
    entry.preparing = undefined
  })
  entry.preparing = done
  return done
}

function releaseQuietly(context: ivm.Context): void {
  try {
    context.release()
  } catch {
    // disposed in between
  }
}

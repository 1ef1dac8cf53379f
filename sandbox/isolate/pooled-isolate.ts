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

/** A new isolate with its scripts compiled; `ahead`: with a realm prepared (and armed for `ahead.config`) for its first run. */
export async function createPooled(memoryMb: number, ahead: { config: string | undefined } | undefined): Promise<PooledIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb })
  try {
    const { lockdown, prelude, glue } = await compileGuest(isolate)
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

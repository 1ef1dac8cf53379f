/**
 * Which child process serves which caller. A child serves one caller for its whole life: runs of
 * different callers never share a process, so whatever kills a process (a V8 abort, an out-of-memory
 * isolate, a kill for a stuck run) ends the runs of that one caller and nobody else's. This is Chromium's
 * site isolation applied to callers: a process is never handed from one caller to another, only retired.
 *
 * - At most `maxProcesses` children serve callers at once. A new caller past the cap takes the place of
 *   an idle caller (#evictIdle: one gone quiet, the quietest; else, when every idle caller ran within the
 *   last second, the one whose child has served the fewest runs); when every child has runs in flight it
 *   waits for one to go idle. Not simply the one idle the longest: with more callers active than
 *   processes, that is the one that comes back next, so every run paid a cold spawn (9 callers over 8
 *   processes, each running every 300 ms: 155 spawns for 180 runs). Not simply the fewest served either:
 *   a runtime's own caller that served the warm-up and then went quiet would never go, and 8 busy named
 *   callers beside it would take each other's places on every run.
 * - A warm spare (spawned ahead, serving nobody) lets a new caller start without a cold spawn. It is kept
 *   once callers are told apart (a run carried a caller id, or every run is its own caller), so a
 *   single-caller runtime keeps exactly one child.
 * - A named caller's child is retired after `idleMs` without runs; a per-run child when its run ends.
 *
 * The children's lifecycle is the shared one (vocabulary/warm-pool.ts): the spare is its idle resource (its
 * health rule drops a spare that died before a caller took it), a caller's child a busy one until retired,
 * and close ends every child, those still starting included. Which child goes to whom is this file's.
 */
import { WarmPool } from '../../vocabulary/warm-pool.js'
import type { SupervisedChild } from './supervisor.js'

export type Spawn = () => Promise<SupervisedChild | string>

export interface CallerPoolOptions {
  /** Children serving callers at once (the spare is one more). */
  maxProcesses: number
  /** A named caller's child is retired after this long without a run. */
  idleMs: number
  spawn: Spawn
}

/** One caller's hold on its child. */
export interface Lease {
  readonly caller: string
  /** Settles once the child is ready (or could not start: the message). */
  readonly ready: Promise<SupervisedChild | string>
  child: SupervisedChild | undefined
  /** Runs in flight (or waiting for `ready`). */
  runs: number
  /** Runs this child has served: the fewest goes first when a new caller needs room. */
  served: number
  /** When it was last used, as a count of uses across the pool (a tie-break, never a ms collision). */
  lastUsed: number
  /** When it was last used (ms): a caller quiet for longer than RECENT_MS goes first, oldest first. */
  lastUsedAt: number
  /** Retire the child as soon as it has no runs (a per-run caller). */
  readonly once: boolean
  idleTimer: NodeJS.Timeout | undefined
  /** Sessions whose realms live in this child: while there are any, it is not retired for idleness. */
  readonly sessions: Set<string>
}

/** The caller of a runtime that never names one: its child is never retired for idleness. */
export const DEFAULT_CALLER = ''

/** A caller idle longer than this is "quiet" when room is needed (see #evictIdle). */
const RECENT_MS = 1_000
/**
 * A child holding session realms is not taken for another caller within this long of its last run: a
 * restore replays a session's runs back to back and then runs the new one, and a child taken between two
 * of them lost the restore (the session began afresh: 62 of 72 turns wrong with 12 sessions over 8
 * processes). A session whose turns come further apart than this is taken as before and restored later.
 */
const SESSION_GRACE_MS = 250
/** A child's own start is bounded (supervisor.ts's ready timeout); this only bounds the whole spawn. */
const START_TIMEOUT_MS = 60_000
/** A kill is SIGKILL: the child is gone once its streams close. */
const STOP_TIMEOUT_MS = 10_000
const CLOSED = 'the isolate sandbox is closed'

export class CallerPool {
  readonly #options: CallerPoolOptions
  readonly #leases = new Map<string, Lease>()
  /** The children: the spare idle, every caller's busy. */
  readonly #children: WarmPool<SupervisedChild>
  readonly #waiters = new Set<() => void>()
  /** Callers are told apart: keep a warm spare from now on. */
  #keepSpare = false
  /** warm() asked for a spare before any caller: one is kept until a caller takes it. */
  #wantSpare = false
  /** Why the last spawn failed (warm() and probe() say it). */
  #lastFailure: string | undefined
  #closed = false
  #uses = 0
  /** Wakes waiting callers when the soonest session grace ends (#evictIdle found nothing else to take). */
  #graceTimer: NodeJS.Timeout | undefined

  constructor(options: CallerPoolOptions) {
    this.#options = options
    const spare = () => (this.#keepSpare || this.#wantSpare ? 1 : 0)
    this.#children = new WarmPool<SupervisedChild>(
      {
        create: async () => {
          const child = await options.spawn()
          if (typeof child !== 'string') return { ok: true, resource: child }
          this.#lastFailure = child
          return { ok: false, message: child }
        },
        destroy: (child) => {
          child.kill()
          return child.closed
        },
        healthy: (child) => child.alive,
      },
      {
        name: 'the isolate sandbox',
        warm: spare,
        maxIdle: spare,
        keep: spare,
        // The cap is on callers (#evictIdle), the spare one more: the lifecycle needs none of its own.
        max: Number.POSITIVE_INFINITY,
        idleMs: options.idleMs,
        startTimeoutMs: START_TIMEOUT_MS,
        stopTimeoutMs: STOP_TIMEOUT_MS,
      },
    )
  }

  /** Children serving callers now, and whether a spare is ready or starting (for tests and the bench). */
  get size(): { leased: number; spare: boolean } {
    const { idle, starting, waiting } = this.#children.counts()
    return { leased: this.#leases.size, spare: idle + starting > waiting }
  }

  /** The live child serving `caller`, if it has one. */
  childOf(caller: string): SupervisedChild | undefined {
    const child = this.#leases.get(caller)?.child
    return child?.alive ? child : undefined
  }

  /**
   * Have a child ready before the first run: the default caller's, or else the spare the first caller
   * will take. Called before every run, so it never spawns when something is ready or starting. Resolves
   * undefined when a child is ready, else why none is (a spare that failed is not kept: the next call tries
   * a new spawn rather than repeating an old failure).
   */
  async warm(): Promise<string | undefined> {
    if (this.#closed) return CLOSED
    const own = this.#leases.get(DEFAULT_CALLER)
    if (own && (own.child === undefined || own.child.alive)) {
      const child = await own.ready
      return typeof child === 'string' ? child : child.alive ? undefined : 'the isolate process exited'
    }
    this.#wantSpare = true
    if (await this.#children.ready(1, START_TIMEOUT_MS)) return undefined
    return this.#closed ? CLOSED : (this.#lastFailure ?? 'the isolate process did not start')
  }

  /**
   * The lease of `caller`, counting one more run on it; waits while every child is busy with other
   * callers. `once`: this caller is one run (its child is retired when the run ends).
   */
  async acquire(caller: string, signal: AbortSignal, once = false): Promise<Lease | 'aborted' | 'closed'> {
    if (caller !== DEFAULT_CALLER || once) this.#keepSpare = true
    for (;;) {
      if (this.#closed) return 'closed'
      if (signal.aborted) return 'aborted'
      const held = this.#leases.get(caller)
      if (held && (held.child === undefined || held.child.alive)) return this.#use(held)
      if (held) this.#leases.delete(caller)
      if (this.#leases.size < this.#options.maxProcesses || this.#evictIdle()) return this.#use(this.#lease(caller, once))
      await this.#waitForIdle(signal)
    }
  }

  /** One run on this lease ended. */
  release(lease: Lease): void {
    lease.runs--
    lease.lastUsed = ++this.#uses
    lease.lastUsedAt = Date.now()
    if (lease.runs > 0) return
    if (lease.once) return this.#retire(lease)
    if (lease.caller !== DEFAULT_CALLER) {
      this.#armIdle(lease)
    }
    this.#wake()
  }

  #armIdle(lease: Lease): void {
    clearTimeout(lease.idleTimer)
    lease.idleTimer = setTimeout(() => {
      if (lease.runs > 0) return
      // Its session realms are the runtime's to expire (rt sessions' idleMs); until then the child stays.
      if (lease.sessions.size > 0) return this.#armIdle(lease)
      this.#retire(lease)
    }, this.#options.idleMs)
    lease.idleTimer.unref()
  }

  /** A child died: whoever leased it gets a new one on their next run; a spare is replaced. */
  forget(child: SupervisedChild): void {
    this.#children.retire(child)
    for (const lease of this.#leases.values()) {
      if (lease.child === child) {
        clearTimeout(lease.idleTimer)
        this.#leases.delete(lease.caller)
        this.#wake()
      }
    }
  }

  /** Stop handing out children; resolves once every child ever started is gone (or past its stop timeout). */
  async close(): Promise<void> {
    this.#closed = true
    for (const lease of this.#leases.values()) clearTimeout(lease.idleTimer)
    clearTimeout(this.#graceTimer)
    this.#leases.clear()
    this.#wake()
    await this.#children.close()
  }

  #use(lease: Lease): Lease {
    lease.runs++
    lease.served++
    lease.lastUsed = ++this.#uses
    lease.lastUsedAt = Date.now()
    clearTimeout(lease.idleTimer)
    lease.idleTimer = undefined
    return lease
  }

  #lease(caller: string, once: boolean): Lease {
    this.#wantSpare = false
    // The spare if there is one (a dead one is dropped), else a spawn; the spare is refilled at once, not
    // after this child is ready: a burst of new callers spawns in parallel.
    const ready = this.#children.take().then((taken) => (taken.ok ? taken.resource : taken.message))
    const lease: Lease = {
      caller,
      ready,
      child: undefined,
      runs: 0,
      served: 0,
      lastUsed: ++this.#uses,
      lastUsedAt: Date.now(),
      once,
      idleTimer: undefined,
      sessions: new Set(),
    }
    this.#leases.set(caller, lease)
    void ready.then((child) => {
      if (typeof child === 'string') {
        // Could not start: the next run of this caller tries again.
        if (this.#leases.get(caller) === lease) this.#leases.delete(caller)
        return
      }
      lease.child = child
      if (this.#leases.get(caller) !== lease) this.#children.retire(child)
    })
    return lease
  }

  /**
   * Make room by retiring an idle caller's child; false when every child is busy. A child without session
   * realms goes before one with (a session's realm costs a replay to restore). Then a caller quiet for over
   * RECENT_MS, the quietest first: it is the least likely to come back (a runtime's own caller left behind
   * when named callers took over). When every idle caller ran within RECENT_MS, more callers are active
   * than there are processes, and the quietest is the one whose turn comes next (callers taking turns):
   * then the one that has served the fewest runs goes, of those the one used last, so the callers that
   * have a child keep it and the overflow shares what is left.
   */
  #evictIdle(): boolean {
    const now = Date.now()
    const quiet = (l: Lease) => now - l.lastUsedAt > RECENT_MS
    // Negative: `a` goes before `b`.
    const before = (a: Lease, b: Lease): number =>
      Number(a.sessions.size > 0) - Number(b.sessions.size > 0) ||
      Number(!quiet(a)) - Number(!quiet(b)) ||
      (quiet(a) ? a.lastUsed - b.lastUsed : a.served - b.served || b.lastUsed - a.lastUsed)
    let victim: Lease | undefined
    let graceEnds = Number.POSITIVE_INFINITY
    for (const lease of this.#leases.values()) {
      if (lease.runs !== 0 || lease.child === undefined) continue
      if (lease.sessions.size > 0 && now - lease.lastUsedAt < SESSION_GRACE_MS) {
        graceEnds = Math.min(graceEnds, lease.lastUsedAt + SESSION_GRACE_MS)
        continue
      }
      if (!victim || before(lease, victim) < 0) victim = lease
    }
    if (!victim && graceEnds !== Number.POSITIVE_INFINITY && this.#graceTimer === undefined) {
      this.#graceTimer = setTimeout(
        () => {
          this.#graceTimer = undefined
          this.#wake()
        },
        Math.max(1, graceEnds - now),
      )
    }
    if (!victim) return false
    this.#retire(victim)
    return true
  }

  #retire(lease: Lease): void {
    clearTimeout(lease.idleTimer)
    if (this.#leases.get(lease.caller) === lease) this.#leases.delete(lease.caller)
    void lease.ready.then((child) => typeof child !== 'string' && this.#children.retire(child))
    this.#wake()
  }

  #waitForIdle(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done)
        signal.removeEventListener('abort', done)
        resolve()
      }
      this.#waiters.add(done)
      signal.addEventListener('abort', done, { once: true })
    })
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter()
  }
}

/**
 * What a warm pool (warm-pool.ts) is made of and answers: the backend that makes and ends one resource, the
 * rules it keeps, and the values a take and a count give back.
 */

export type Created<R> = { ok: true; resource: R } | { ok: false; message: string }

export interface WarmPoolBackend<R> {
  /** Make one resource, ready to use; a failure is a value (a throw is taken as one). */
  create(): Promise<Created<R>>
  /** End one resource; its end may be awaited. Called once per resource. */
  destroy(resource: R): unknown
  /** Still fit to hand out (checked at every take and give back); false: it is destroyed. */
  healthy?(resource: R): boolean
  /** A new resource goes idle (nobody waited for it): prepare it for its next use, in the background. */
  standby?(resource: R): void
}

/** A number, or a function read each time the rule applies. */
export type Count = number | (() => number)

export interface WarmPoolOptions {
  /** Idle or starting resources the pool keeps ready (refill target). */
  warm: Count
  /** Resources alive at once: starting, idle and busy together. */
  max: number
  /** Idle resources held at most; one given back past it is destroyed. Default: `max`. */
  maxIdle?: Count
  /** An idle resource older than this is destroyed, down to `keep()` (a function: read at each idle). */
  idleMs: Count
  /** Idle resources never trimmed for idleness. Default 0. */
  keep?: Count
  /** A resource is destroyed after this many uses. Default: unlimited. */
  maxUses?: number
  startTimeoutMs: number
  stopTimeoutMs: number
  /** The refill after a take waits this long. Default 0 (at once). */
  refillDelayMs?: number
  /** Take the idle resource given back longest ago first. Default: the most recent first. */
  takeOldest?: boolean
  /** A take with none idle waits this long for a `returning` one before starting a create. Default 0. */
  returnWaitMs?: number
  /** What the pool serves, for messages ("the docker sandbox"). */
  name: string
}

/** `start_failed`'s message is the backend's own, as it is (it names the fix). */
export type TakeFailure = { ok: false; code: 'closed' | 'aborted' | 'start_failed' | 'start_timeout'; message: string }
export type Taken<R> = { ok: true; resource: R } | TakeFailure

/** How many resources are in each state (and how many destroys passed their stop timeout). */
export interface PoolCounts {
  starting: number
  idle: number
  busy: number
  stopping: number
  waiting: number
  /** Busy ones whose holder said they are on their way back (`returning`). */
  returning: number
  stuck: number
  created: number
  destroyed: number
}

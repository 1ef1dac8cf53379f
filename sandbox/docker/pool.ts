/**
 * The warm pool of containers (vocabulary/warm-pool.ts's lifecycle): a few started containers whose runner
 * already said `ready`, so a run skips the second a cold start costs. What is particular to containers:
 * they are single-use (a run takes one and removes it after that run; a session takes one for all its runs;
 * neither comes back), and the pool warms for the memory size last asked, letting the others go.
 */
import { WarmPool as Lifecycle } from '../../vocabulary/warm-pool.js'
import type { ReadyContainer, Spawned } from './spawn.js'

export interface PoolOptions {
  size: number
  idleTimeoutMs: number
  memoryMb: number
  /** How long one start may take before a take stops waiting for it (spawn bounds its own steps too). */
  startTimeoutMs?: number
  spawn(memoryMb: number): Promise<Spawned>
  /** Remove a container the pool will not hand out. */
  discard(container: ReadyContainer): void
}

/** A start is a create, an attach, the runner's `ready` and one retry when the machine is busy: two of spawn's own bounds. */
const START_TIMEOUT_MS = 2 * 60_000 + 5_000
/** Removal is the engine's, tracked by the sandbox (close waits for it there): the pool only asks. */
const STOP_TIMEOUT_MS = 10_000
/** Refill soon after a take, but not in the run's first milliseconds: a container start competes for the CPU. */
const REFILL_DELAY_MS = 100
const NAME = 'the docker sandbox'

export class WarmPool {
  /** One lifecycle per memory size asked; only the size last asked is kept warm. */
  private readonly sizes = new Map<number, Lifecycle<ReadyContainer>>()
  private target: number
  private closed = false
  /** Counters for the bench and for debugging; `lastError` is why the last container failed to start. */
  readonly stats: { hits: number; misses: number; lastError: string | undefined } = { hits: 0, misses: 0, lastError: undefined }

  constructor(private readonly o: PoolOptions) {
    this.target = o.memoryMb
  }

  get readyCount(): number {
    return this.sizes.get(this.target)?.counts().idle ?? 0
  }

  /**
   * A ready container with `memoryMb`: from the pool when one is there, else the next one started.
   * The refill starts after a short delay, or when the caller calls `fill()` at the end of its run.
   */
  async take(memoryMb: number): Promise<Spawned> {
    if (this.closed) return { ok: false, message: `${NAME} is closed` }
    if (this.o.size === 0) return this.o.spawn(memoryMb)
    this.aim(memoryMb)
    const ready = this.takeReady(memoryMb)
    if (ready) return { ok: true, ready }
    this.stats.misses++
    const pool = this.pool(memoryMb)
    const taken = await pool.take()
    if (!taken.ok) return { ok: false, message: taken.message }
    pool.detach(taken.resource)
    return { ok: true, ready: taken.resource }
  }

  /**
   * A ready container with `memoryMb` if the pool holds one now, else undefined: never waits, never changes
   * the size the pool warms for (a session's first run takes one this way and keeps it).
   */
  takeReady(memoryMb: number): ReadyContainer | undefined {
    if (this.closed || memoryMb !== this.target) return undefined
    const pool = this.sizes.get(memoryMb)
    const ready = pool?.takeIdle()
    if (pool === undefined || ready === undefined) return undefined
    pool.detach(ready)
    this.stats.hits++
    return ready
  }

  /** Start containers until the pool (plus anyone waiting) is covered. Returns at once. */
  fill(): void {
    if (!this.closed && this.o.size > 0) this.pool(this.target).fill()
  }

  /** Wait until the pool holds `count` ready containers, or the starts in flight fail. For benches and tests. */
  async warm(count = this.o.size, timeoutMs = 30_000): Promise<boolean> {
    const want = Math.min(count, this.o.size)
    if (this.closed || want <= 0) return want <= 0
    return this.pool(this.target).ready(want, timeoutMs)
  }

  /** Remove every pooled container, and those still starting once they arrive. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.sizes.values()].map((pool) => pool.close()))
  }

  /** A run asked for `memoryMb`: from now on the pool warms for it, and the ready ones of another size go. */
  private aim(memoryMb: number): void {
    if (memoryMb === this.target) return
    this.sizes.get(this.target)?.trim(0)
    this.target = memoryMb
  }

  private pool(memoryMb: number): Lifecycle<ReadyContainer> {
    let pool = this.sizes.get(memoryMb)
    if (pool === undefined) {
      const warmHere = () => (memoryMb === this.target ? this.o.size : 0)
      pool = new Lifecycle<ReadyContainer>(
        {
          create: async () => {
            const spawned = await this.o.spawn(memoryMb)
            if (spawned.ok) return { ok: true, resource: spawned.ready }
            this.stats.lastError = spawned.message
            return { ok: false, message: spawned.message }
          },
          destroy: (container) => this.o.discard(container),
          healthy: (container) => container.channel.isOpen,
        },
        {
          name: NAME,
          warm: warmHere,
          maxIdle: warmHere,
          max: Number.POSITIVE_INFINITY,
          idleMs: this.o.idleTimeoutMs,
          startTimeoutMs: this.o.startTimeoutMs ?? START_TIMEOUT_MS,
          stopTimeoutMs: STOP_TIMEOUT_MS,
          refillDelayMs: REFILL_DELAY_MS,
        },
      )
      this.sizes.set(memoryMb, pool)
    }
    return pool
  }
}

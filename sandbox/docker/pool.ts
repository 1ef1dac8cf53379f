/**
 * The warm pool: a few started containers whose runner already said `ready`, so a run skips the second
 * a cold start costs. Containers are single-use: a run takes one, and it is removed after that run (a
 * session takes one for all its runs, and it never comes back).
 * The pool refills in the background, warms for the memory size last asked, and lets idle containers go.
 */
import type { ReadyContainer, Spawned } from './spawn.js'

export interface PoolOptions {
  size: number
  idleTimeoutMs: number
  memoryMb: number
  spawn(memoryMb: number): Promise<Spawned>
  /** Remove a container the pool will not hand out. */
  discard(container: ReadyContainer): void
}

const REFILL_DELAY_MS = 100

interface Waiter {
  memoryMb: number
  resolve(spawned: Spawned): void
}

export class WarmPool {
  private readonly ready: Array<{ container: ReadyContainer; timer: NodeJS.Timeout }> = []
  private readonly waiters: Waiter[] = []
  private readonly inFlight = new Set<Promise<void>>()
  private filling = 0
  private target: number
  private closed = false
  /** Counters for the bench and for debugging; `lastError` is why the last container failed to start. */
  readonly stats: { hits: number; misses: number; lastError: string | undefined } = { hits: 0, misses: 0, lastError: undefined }

  constructor(private readonly o: PoolOptions) {
    this.target = o.memoryMb
  }

  get readyCount(): number {
    return this.ready.length
  }

  /**
   * A ready container with `memoryMb`: from the pool when one is there, else the next one started.
   * The refill starts after a short delay, or when the caller calls `fill()` at the end of its run.
   */
  take(memoryMb: number): Promise<Spawned> {
    if (this.closed) return Promise.resolve({ ok: false, message: 'the docker sandbox is closed' })
    if (this.o.size === 0) return this.o.spawn(memoryMb)
    if (memoryMb !== this.target) {
      this.target = memoryMb
      for (const entry of this.ready.splice(0)) this.drop(entry)
    }
    const ready = this.takeReady(memoryMb)
    if (ready) return Promise.resolve({ ok: true, ready })
    this.stats.misses++
    return new Promise((resolve) => {
      this.waiters.push({ memoryMb, resolve })
      this.fill()
    })
  }

  /**
   * A ready container with `memoryMb` if the pool holds one now, else undefined: never waits, never changes
   * the size the pool warms for (a session's first run takes one this way and keeps it).
   */
  takeReady(memoryMb: number): ReadyContainer | undefined {
    if (this.closed || memoryMb !== this.target) return undefined
    while (this.ready.length > 0) {
      const entry = this.ready.shift()
      if (!entry) break
      clearTimeout(entry.timer)
      if (!entry.container.channel.isOpen) {
        this.o.discard(entry.container)
        continue
      }
      this.stats.hits++
      // Refill soon, but not in the run's first milliseconds: a container start competes for the CPU.
      setTimeout(() => this.fill(), REFILL_DELAY_MS).unref()
      return entry.container
    }
    return undefined
  }

  /** Start containers until the pool (plus anyone waiting) is covered. Returns at once. */
  fill(): void {
    if (this.closed) return
    const needed = this.o.size + this.waiters.length - this.ready.length - this.filling
    for (let i = 0; i < needed; i++) {
      this.filling++
      const memoryMb = this.target
      const p = this.o.spawn(memoryMb).then((spawned) => this.arrived(spawned, memoryMb))
      this.inFlight.add(p)
      void p.finally(() => this.inFlight.delete(p))
    }
  }

  /** Wait until the pool holds `count` ready containers, or the starts in flight fail. For benches and tests. */
  async warm(count = this.o.size, timeoutMs = 30_000): Promise<boolean> {
    const want = Math.min(count, this.o.size)
    this.fill()
    const until = Date.now() + timeoutMs
    while (this.ready.length < want && this.inFlight.size > 0 && Date.now() < until && !this.closed) {
      await Promise.race([...this.inFlight, new Promise((r) => setTimeout(r, 50))])
    }
    return this.ready.length >= want
  }

  private arrived(spawned: Spawned, memoryMb: number): void {
    this.filling--
    if (!spawned.ok) {
      this.stats.lastError = spawned.message
      // The first one waiting learns why; the pool does not retry on its own (no hot loop on a dead engine).
      this.waiters.shift()?.resolve(spawned)
      return
    }
    if (this.closed) return this.o.discard(spawned.ready)
    const i = this.waiters.findIndex((w) => w.memoryMb === memoryMb)
    const waiter = i >= 0 ? this.waiters.splice(i, 1)[0] : undefined
    if (waiter) return waiter.resolve(spawned)
    if (memoryMb !== this.target || this.ready.length >= this.o.size) return this.o.discard(spawned.ready)
    const entry = { container: spawned.ready, timer: setTimeout(() => this.expire(entry), this.o.idleTimeoutMs) }
    entry.timer.unref()
    this.ready.push(entry)
    if (this.waiters.length > 0) this.fill()
  }

  private expire(entry: { container: ReadyContainer; timer: NodeJS.Timeout }): void {
    const i = this.ready.indexOf(entry)
    if (i >= 0) this.drop(this.ready.splice(i, 1)[0] ?? entry)
  }

  private drop(entry: { container: ReadyContainer; timer: NodeJS.Timeout }): void {
    clearTimeout(entry.timer)
    this.o.discard(entry.container)
  }

  /** Remove every pooled container, and those still starting once they arrive. */
  async close(): Promise<void> {
    this.closed = true
    for (const entry of this.ready.splice(0)) this.drop(entry)
    for (const w of this.waiters.splice(0)) w.resolve({ ok: false, message: 'the docker sandbox is closed' })
    await Promise.all([...this.inFlight])
  }
}

/**
 * The HTTP sessions: at most `max` at once, each closed after `idleMs` without a request. A new session
 * when the table is full takes the place of the least recently used idle one; when every session has a
 * request in flight, it is refused (503). So `initialize` floods cannot grow memory without bound, and a
 * live client is never cut off. A session the server closed is remembered (its id and why, the last
 * GONE_REMEMBERED of them): its client's next request hears 404 with the reason and the flag that sets the
 * limit, not a bare "unknown session" (the spec's 404 still tells it to start a new session).
 */
export interface SessionEntry {
  id: string
  close(): Promise<void>
}

interface Slot<T extends SessionEntry> {
  entry: T
  lastActive: number
  inFlight: number
}

export type GoneReason = 'evicted' | 'idle'

/** Ids of sessions the server closed, kept to tell their clients why (~100 bytes each). */
const GONE_REMEMBERED = 10_000

export const DEFAULT_MAX_SESSIONS = 100
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000

export class SessionTable<T extends SessionEntry> {
  readonly #slots = new Map<string, Slot<T>>()
  readonly #max: number
  readonly #idleMs: number
  readonly #sweeper: NodeJS.Timeout
  /** Sessions being initialized: room was made for them, they are not in the table yet. */
  #reserved = 0
  /** Sessions the server closed, oldest first (a Map keeps insertion order). */
  readonly #gone = new Map<string, GoneReason>()

  constructor(options: { max?: number; idleMs?: number } = {}) {
    this.#max = options.max ?? DEFAULT_MAX_SESSIONS
    this.#idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS
    this.#sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(60_000, Math.floor(this.#idleMs / 4))))
    this.#sweeper.unref()
  }

  get size(): number {
    return this.#slots.size
  }

  /** Why the server closed session `id`, when it did (undefined: never known, or closed by its client). */
  whyGone(id: string): string | undefined {
    const reason = this.#gone.get(id)
    if (reason === 'evicted')
      return `session ${id} was closed by the server to make room for a new one: it was the least recently used of ${this.#max} sessions (the limit, --max-sessions); send initialize to start a new session`
    if (reason === 'idle')
      return `session ${id} was closed by the server after ${this.#idleMs} ms without a request (--session-idle); send initialize to start a new session`
    return undefined
  }

  get(id: string): T | undefined {
    const slot = this.#slots.get(id)
    if (slot) slot.lastActive = Date.now()
    return slot?.entry
  }

  /**
   * Reserves room for one more session (evicting the least recently used idle one if need be); false when
   * every session is busy. Follow with `add`, or `release` if the session never came to be.
   */
  reserve(): boolean {
    while (this.#slots.size + this.#reserved >= this.#max) {
      let oldest: Slot<T> | undefined
      for (const slot of this.#slots.values()) {
        if (slot.inFlight === 0 && (!oldest || slot.lastActive < oldest.lastActive)) oldest = slot
      }
      if (!oldest) return false
      this.#drop(oldest, 'evicted')
    }
    this.#reserved++
    return true
  }

  release(): void {
    this.#reserved = Math.max(0, this.#reserved - 1)
  }

  /** Adds a session room was reserved for. */
  add(entry: T): void {
    this.release()
    this.#slots.set(entry.id, { entry, lastActive: Date.now(), inFlight: 0 })
  }

  /** Forgets a session that closed by itself (DELETE, transport closed). */
  delete(id: string): void {
    this.#slots.delete(id)
  }

  /** Marks a request of the session in flight; the returned function marks it done. */
  busy(id: string): () => void {
    const slot = this.#slots.get(id)
    if (!slot) return () => {}
    slot.inFlight++
    let done = false
    return () => {
      if (done) return
      done = true
      slot.inFlight--
      slot.lastActive = Date.now()
    }
  }

  /** Closes the sessions idle for longer than the limit. */
  sweep(now = Date.now()): void {
    for (const slot of [...this.#slots.values()]) {
      if (slot.inFlight === 0 && now - slot.lastActive > this.#idleMs) this.#drop(slot, 'idle')
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper)
    const all = [...this.#slots.values()]
    this.#slots.clear()
    await Promise.all(all.map((s) => s.entry.close().catch(() => {})))
  }

  #drop(slot: Slot<T>, reason: GoneReason): void {
    this.#slots.delete(slot.entry.id)
    this.#gone.set(slot.entry.id, reason)
    if (this.#gone.size > GONE_REMEMBERED) this.#gone.delete(this.#gone.keys().next().value!)
    void slot.entry.close().catch(() => {})
  }
}

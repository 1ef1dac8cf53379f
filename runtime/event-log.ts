/**
 * The append-only event log: one per runtime, covering programs and native calls alike.
 *
 * In memory it keeps the newest `maxRetained` events (a long-lived runtime must not grow without bound),
 * but never drops an event a run still in progress will need for its RunResult: runs pin their start.
 * A JSONL file sink (`writeTo`) keeps everything, for `codeact replay`.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import type { EventData, EventType, RunEvent } from '../vocabulary/types.js'
import { signedLine } from './log-signing.js'
import { stateDir, stateKey } from '../vocabulary/state-folder.js'

export type EventListener = (event: RunEvent) => void

export const DEFAULT_RETAINED_EVENTS = 10_000

export class EventLog {
  #events: RunEvent[] = []
  /** seq of the last event dropped from memory (events[0].seq - 1). */
  #dropped = 0
  #seq = 0
  #pins = new Map<symbol, number>()
  #listeners = new Set<EventListener>()
  /** File sinks: each line signed, chained to the previous line's MAC (log-signing.ts). */
  #files: { fd: number; key: Buffer; prev: string }[] = []
  readonly maxRetained: number

  constructor(options: { maxRetained?: number } = {}) {
    this.maxRetained = Math.max(1, options.maxRetained ?? DEFAULT_RETAINED_EVENTS)
  }

  append<T extends EventType>(type: T, data: EventData[T]): RunEvent<T> {
    const event: RunEvent<T> = { seq: ++this.#seq, time: Date.now(), type, data }
    this.#events.push(event as RunEvent)
    for (const f of this.#files) {
      const { line, mac } = signedLine(f.key, f.prev, event as RunEvent)
      writeSync(f.fd, line + '\n')
      f.prev = mac
    }
    for (const l of this.#listeners) {
      try {
        l(event as RunEvent)
      } catch {
        // A listener's bug must not break the run that emitted the event.
      }
    }
    if (this.#events.length > this.maxRetained * 2) this.#trim()
    return event
  }

  /** Live events, as they happen. Returns an unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Also write every future event to `file` as signed JSONL (the file is created or truncated, 0600); `key`
   * defaults to the state folder's. Throws when there is no key to sign with.
   */
  writeTo(file: string, key?: Buffer): void {
    const signing = key ? { ok: true as const, value: key } : stateKey(stateDir())
    if (!signing.ok) throw new Error(`codeact: the log ${file} cannot be signed: ${signing.message}`)
    this.#files.push({ fd: openSync(file, 'w', 0o600), key: signing.value, prev: '' })
  }

  /** Keeps every event after `seq` in memory until the returned function is called. */
  pin(seq: number): () => void {
    const token = Symbol('pin')
    this.#pins.set(token, seq)
    return () => {
      this.#pins.delete(token)
      // Trimmed in steps of a quarter of the retention, not on every run's release: each trim moves the
      // whole array, and a busy runtime releases a pin per run.
      if (this.#events.length > this.maxRetained + Math.ceil(this.maxRetained / 4)) this.#trim()
    }
  }

  /** Events with seq in (after, …] that are still in memory. */
  since(after: number): RunEvent[] {
    return this.#events.slice(Math.max(0, after - this.#dropped))
  }

  /** The seq of the newest event (the count of events ever appended). */
  get length(): number {
    return this.#seq
  }

  /** The events still in memory, oldest first. */
  all(): readonly RunEvent[] {
    return this.#events
  }

  toJSONL(): string {
    return this.#events.map((e) => JSON.stringify(e)).join('\n') + (this.#events.length ? '\n' : '')
  }

  /** Closes the file sinks. */
  close(): void {
    for (const f of this.#files.splice(0)) closeSync(f.fd)
  }

  #trim(): void {
    let keepFrom = this.#seq - this.maxRetained
    for (const seq of this.#pins.values()) keepFrom = Math.min(keepFrom, seq)
    const drop = keepFrom - this.#dropped
    if (drop <= 0) return
    this.#events.splice(0, drop)
    this.#dropped += drop
  }
}

/** The events of a JSONL log, unchecked (`verifyLog` checks a signed one). */
export function parseJSONL(text: string): RunEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const { mac: _mac, ...event } = JSON.parse(l) as RunEvent & { mac?: unknown }
      return event as RunEvent
    })
}

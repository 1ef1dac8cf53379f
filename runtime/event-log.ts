/** The append-only event log: one per runtime, covering programs and native calls alike. */
import { appendFileSync } from 'node:fs'
import type { EventData, EventType, RunEvent } from './types.js'

export type EventListener = (event: RunEvent) => void

export class EventLog {
  #events: RunEvent[] = []
  #listeners = new Set<EventListener>()
  #files: string[] = []

  append<T extends EventType>(type: T, data: EventData[T]): RunEvent<T> {
    const event: RunEvent<T> = { seq: this.#events.length + 1, time: Date.now(), type, data }
    this.#events.push(event as RunEvent)
    for (const file of this.#files) appendFileSync(file, JSON.stringify(event) + '\n')
    for (const l of this.#listeners) {
      try {
        l(event as RunEvent)
      } catch {
        // A listener's bug must not break the run that emitted the event.
      }
    }
    return event
  }

  /** Live events, as they happen. Returns an unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Also write every future event to `file` as JSONL. */
  writeTo(file: string): void {
    this.#files.push(file)
  }

  /** Events with seq in (after, …]. */
  since(after: number): RunEvent[] {
    return this.#events.slice(after)
  }

  get length(): number {
    return this.#events.length
  }

  all(): readonly RunEvent[] {
    return this.#events
  }

  toJSONL(): string {
    return this.#events.map((e) => JSON.stringify(e)).join('\n') + (this.#events.length ? '\n' : '')
  }
}

export function parseJSONL(text: string): RunEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RunEvent)
}

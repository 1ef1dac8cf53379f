/**
 * Console lines of one run, held in the child until the next message goes out anyway (a tool call, the
 * outcome) or the event loop turns. The prelude caps output already; this is the second line of defence,
 * so a guest that somehow floods cannot swamp the pipe to the caller.
 */
import type { LogEntry, LogLevel } from '../../vocabulary/types.js'

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error', 'debug'])
/** Room above the cap for the prelude's own "output cut" marker. */
const SLACK_BYTES = 4096

export class LogBatch {
  readonly #limitBytes: number
  #entries: LogEntry[] = []
  #usedBytes = 0
  /** Bytes this side dropped (the prelude reports its own). */
  droppedBytes = 0

  constructor(maxOutputBytes: number) {
    this.#limitBytes = maxOutputBytes + SLACK_BYTES
  }

  /** Keep one line; false when it was dropped. */
  push(level: string, text: string): boolean {
    // Counted in UTF-16 units: the prelude already counts exact UTF-8 bytes, a backstop can be cheap.
    const size = text.length + 1
    if (!LEVELS.has(level) || this.#usedBytes + size > this.#limitBytes) {
      this.droppedBytes += size
      return false
    }
    this.#usedBytes += size
    this.#entries.push({ level: level as LogLevel, text })
    return true
  }

  get size(): number {
    return this.#entries.length
  }

  /** Everything held so far, or undefined when there is nothing. */
  take(): LogEntry[] | undefined {
    if (this.#entries.length === 0) return undefined
    const out = this.#entries
    this.#entries = []
    return out
  }
}

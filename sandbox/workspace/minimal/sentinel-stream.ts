/**
 * One output stream of the persistent shell, cut into commands by a per-command nonce the shell prints
 * after each one. Output kept per command is capped; the rest is drained (so the nonce is still found)
 * and dropped. What a background job prints between commands is kept for the next command, capped too.
 */
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'

export interface Section {
  text: string
  /** What followed the nonce on its line (the exit status on stdout). */
  status: string
  truncated: boolean
}

interface Waiting {
  marker: string
  max: number
  out: string
  truncated: boolean
  resolve(section: Section): void
}

export class SentinelStream {
  private pending = ''
  private waiting: Waiting | undefined
  private readonly decoder = new StringDecoder('utf8')

  constructor(
    stream: Readable,
    private readonly idleMax: number,
  ) {
    stream.on('data', (chunk: Buffer) => this.push(this.decoder.write(chunk)))
  }

  /** The text up to the next `marker`; resolved when the marker arrives. */
  next(marker: string, max: number): Promise<Section> {
    return new Promise((resolve) => {
      this.waiting = { marker, max, out: '', truncated: false, resolve }
      this.push('')
    })
  }

  /** What arrived of the current command so far (the shell ended or was given up on). */
  abandon(): Section {
    const w = this.waiting
    this.waiting = undefined
    if (!w) return { text: '', status: '', truncated: false }
    this.keep(w, this.pending)
    this.pending = ''
    return { text: w.out, status: '', truncated: w.truncated }
  }

  private keep(w: Waiting, text: string): void {
    const room = w.max - w.out.length
    if (text.length > room) w.truncated = true
    w.out += text.slice(0, Math.max(0, room))
  }

  private push(text: string): void {
    this.pending += text
    const w = this.waiting
    if (!w) {
      // Between commands (a background job's output): keep the newest for the next command.
      if (this.pending.length > this.idleMax) this.pending = this.pending.slice(-this.idleMax)
      return
    }
    const at = this.pending.indexOf(w.marker)
    const eol = at === -1 ? -1 : this.pending.indexOf('\n', at)
    if (eol === -1) {
      // Keep enough to find a marker split across chunks; the rest is output.
      const hold = w.marker.length + 32
      if (this.pending.length > hold) {
        this.keep(w, this.pending.slice(0, -hold))
        this.pending = this.pending.slice(-hold)
      }
      return
    }
    this.keep(w, this.pending.slice(0, at))
    const status = this.pending.slice(at + w.marker.length, eol)
    this.pending = this.pending.slice(eol + 1)
    this.waiting = undefined
    w.resolve({ text: w.out, status, truncated: w.truncated })
  }
}

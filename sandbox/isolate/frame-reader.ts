/**
 * Cuts the byte stream of the pipe between the supervisor and the isolate child into frame bodies
 * (frame.ts has their form), and refuses, as an error value, what a broken sender writes.
 */
import { HEADER_BYTES } from './frame.js'
import { M } from './protocol.js'

/**
 * The longest frame either side accepts. The largest legal message is a 'done' carrying the longest string
 * V8 makes (2^29 − 24 units) as a value's JSON, 3 bytes a unit at worst in UTF-8: 1.5 GiB. A call's
 * arguments (64 MiB in flight) are far below; console output above it goes as several frames (child.ts).
 */
export const MAX_FRAME_BYTES = 2 ** 31

/** The kinds each side may receive: the reader checks a frame's first byte before it waits for the rest. */
export const KINDS_FROM_CHILD: ReadonlySet<number> = new Set([M.ready, M.call, M.log, M.done])
export const KINDS_TO_CHILD: ReadonlySet<number> = new Set([M.run, M.result, M.abort, M.endSession, M.hold])

/**
 * Cuts a byte stream into frame bodies, whatever the chunks: a frame split over many, many frames in one.
 * A length over the bound or a kind this side does not receive is refused as soon as its bytes are in —
 * garbage is caught there, not after waiting for the gigabyte its first four bytes claim. After the first
 * error it reads nothing more (the stream is out of step; the sender is broken).
 */
export class FrameReader {
  readonly #onFrame: (body: Buffer) => void
  readonly #onError: (error: string) => void
  readonly #kinds: ReadonlySet<number>
  readonly #maxBytes: number
  #chunks: Buffer[] = []
  #have = 0
  /** The body length of the frame being read; -1 until its header is in. */
  #need = -1
  #kindSeen = false
  #failed = false

  constructor(kinds: ReadonlySet<number>, onFrame: (body: Buffer) => void, onError: (error: string) => void, maxBytes = MAX_FRAME_BYTES) {
    this.#kinds = kinds
    this.#onFrame = onFrame
    this.#onError = onError
    this.#maxBytes = maxBytes
  }

  push(chunk: Buffer): void {
    if (this.#failed) return
    this.#chunks.push(chunk)
    this.#have += chunk.length
    while (!this.#failed) {
      if (this.#need < 0) {
        if (this.#have < HEADER_BYTES) return
        const need = this.#flatIfShort(HEADER_BYTES).readUInt32LE(0)
        if (need > this.#maxBytes) return this.#fail(`a frame of ${need} bytes (more than the ${this.#maxBytes} a message can be)`)
        if (need === 0) return this.#fail('an empty frame')
        this.#need = need
        this.#kindSeen = false
      }
      if (!this.#kindSeen) {
        if (this.#have <= HEADER_BYTES) return
        const kind = this.#flatIfShort(HEADER_BYTES + 1)[HEADER_BYTES]!
        if (!this.#kinds.has(kind)) return this.#fail(`a frame of unknown kind ${kind}`)
        this.#kindSeen = true
      }
      const end = HEADER_BYTES + this.#need
      if (this.#have < end) return
      const all = this.#flatIfShort(end)
      const rest = all.subarray(end)
      this.#chunks = rest.length > 0 ? [rest] : []
      this.#have = rest.length
      this.#need = -1
      this.#onFrame(all.subarray(HEADER_BYTES, end))
    }
  }

  /** The stream ended: a frame cut off is an error too. */
  end(): void {
    if (!this.#failed && this.#have > 0) this.#fail(`the stream ended inside a frame (${this.#have} bytes)`)
  }

  /** The first chunk, if it holds `n` bytes; else all chunks joined into one (a frame's bytes copied once). */
  #flatIfShort(n: number): Buffer {
    const first = this.#chunks[0]!
    if (first.length >= n) return first
    const joined = Buffer.concat(this.#chunks, this.#have)
    this.#chunks = [joined]
    return joined
  }

  #fail(error: string): void {
    this.#failed = true
    this.#chunks = []
    this.#have = 0
    this.#onError(error)
  }
}

/// <reference lib="es2024.string" />
/**
 * The wire form of the isolate protocol's messages (protocol.ts) on the pipe between the supervisor and the
 * child: length-prefixed binary frames, one write each. Measured against Node's IPC channel (V8
 * serialization, a serializer object and a handle-passing check per message), a bare call/result round
 * trip took ~40 % less CPU on each side, a run/done ~22 %.
 *
 * A frame is a u32 LE length, then the body: a u8 kind, then the kind's fields in a fixed order. Numbers
 * are f64 LE. The strings that carry data — a program's js, a call's name and arguments, an answer's text,
 * a value's JSON, console lines — are a u8 tag and a u32 byte length: raw UTF-8, or UTF-16 LE for a string
 * with a lone surrogate (UTF-8 cannot hold one; V8's serializer kept them, so this does too). The small
 * structured parts (limits, session, entropy, the rest of an outcome) are such a string holding JSON.
 *
 * The child's frames are not trusted blindly (the isolates in it run untrusted code): the reader
 * (frame-reader.ts) refuses a frame too long or of the wrong kind before it buffers it, and decoding checks
 * every length against the frame; either failure is an error value for the caller to treat as a broken child.
 */
import type { LogEntry, LogLevel } from '../../vocabulary/types.js'
import type { SandboxEntropy, SandboxLimits, SandboxOutcome, SandboxSessionRef } from '../types.js'
import { type CallAnswer, type CallRequest, type FromChild, M, type ToChild } from './protocol.js'

/** The u32 LE length in front of every frame's body. */
export const HEADER_BYTES = 4
const STRING_UTF8 = 0
const STRING_UTF16 = 1
const ABSENT = 2
const LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error', 'debug']
const LEVEL_CODE: Readonly<Record<string, number>> = { log: 0, info: 1, warn: 2, error: 3, debug: 4 }
/** A frame at most this long is encoded in a reused buffer and copied out; a longer one keeps its own. */
const SCRATCH_BYTES = 64 * 1024

/**
 * Node's own per-encoding methods on every Buffer (what `toString(enc, start, end)` and `write(s, at, enc)`
 * end in): called directly they skip the argument juggling and the encoding lookup of each string's call.
 */
interface RawBuffer extends Buffer {
  utf8Slice(start: number, end: number): string
  ucs2Slice(start: number, end: number): string
  utf8Write(s: string, offset: number, length: number): number
  ucs2Write(s: string, offset: number, length: number): number
}

class Writer {
  buf = Buffer.allocUnsafe(SCRATCH_BYTES)
  pos = HEADER_BYTES

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(grown, 0, 0, this.pos)
    this.buf = grown
  }
  u8(v: number): void {
    this.room(1)
    this.buf[this.pos++] = v
  }
  u32(v: number): void {
    this.room(4)
    this.buf.writeUInt32LE(v, this.pos)
    this.pos += 4
  }
  f64(v: number): void {
    this.room(8)
    this.buf.writeDoubleLE(v, this.pos)
    this.pos += 8
  }
  str(s: string | undefined): void {
    if (s === undefined) return this.u8(ABSENT)
    const utf8 = s.isWellFormed()
    // Short strings: room for the worst case, no scan first; long ones are measured (3× could be gigabytes).
    const most = utf8 ? (s.length <= SCRATCH_BYTES ? s.length * 3 : Buffer.byteLength(s, 'utf8')) : s.length * 2
    this.room(5 + most)
    const buf = this.buf as RawBuffer
    const at = this.pos
    buf[at] = utf8 ? STRING_UTF8 : STRING_UTF16
    const n = utf8 ? buf.utf8Write(s, at + 5, buf.length - at - 5) : buf.ucs2Write(s, at + 5, buf.length - at - 5)
    buf.writeUInt32LE(n, at + 1)
    this.pos = at + 5 + n
  }
  json(v: unknown): void {
    this.str(v === undefined ? undefined : JSON.stringify(v))
  }
  logs(entries: readonly LogEntry[] | undefined): void {
    if (entries === undefined) return this.u8(ABSENT)
    this.u8(0)
    this.u32(entries.length)
    for (const { level, text } of entries) {
      this.u8(LEVEL_CODE[level] ?? 0)
      this.str(text)
    }
  }
}

const writer = new Writer()

/** One message as one frame (length prefix included). Throws only on what cannot be a message (a bug). */
export function encodeFrame(message: ToChild | FromChild): Buffer {
  const w = writer
  w.pos = HEADER_BYTES
  w.u8(message[0])
  switch (message[0]) {
    case M.run:
      w.f64(message[1])
      w.str(message[2])
      w.json([message[3], message[4], message[5] ?? null, message[6] ?? null])
      break
    case M.result:
      w.f64(message[1])
      w.u32(message[2].length)
      // Indexed, not `for (const [callId, text] of …)`: array destructuring walks an iterator per element
      // (objects made per answer until V8 optimises the loop; a fan-out's answers are a few frames of 64).
      for (let i = 0, answers = message[2]; i < answers.length; i++) {
        const answer = answers[i]!
        w.f64(answer[0])
        w.str(answer[1])
      }
      break
    case M.abort:
    case M.ready:
      w.f64(message[1])
      break
    case M.endSession:
      w.str(message[1])
      break
    case M.hold:
      w.f64(message[1])
      w.u8(message[2] ? 1 : 0)
      break
    case M.call:
      w.f64(message[1])
      w.u32(message[2].length)
      for (let i = 0, calls = message[2]; i < calls.length; i++) {
        const call = calls[i]!
        w.f64(call[0])
        w.str(call[1])
        w.str(call[2])
      }
      w.logs(message[3])
      break
    case M.log:
      w.f64(message[1])
      w.logs(message[2])
      break
    case M.done: {
      const { valueJson, ...rest } = message[2] as SandboxOutcome & { valueJson?: string }
      w.f64(message[1])
      // The value's JSON raw: inside the outcome's JSON it would be escaped, and parsed twice.
      w.str(typeof valueJson === 'string' ? valueJson : undefined)
      w.json(rest)
      w.logs(message[3])
      w.f64(message[4] ?? Number.NaN)
      break
    }
  }
  w.buf.writeUInt32LE(w.pos - HEADER_BYTES, 0)
  if (w.pos > SCRATCH_BYTES) {
    // A large frame keeps the buffer it was written in; the next message starts a fresh scratch.
    const frame = w.buf.subarray(0, w.pos)
    w.buf = Buffer.allocUnsafe(SCRATCH_BYTES)
    return frame
  }
  return Buffer.from(w.buf.subarray(0, w.pos))
}

class Malformed extends Error {}

class Cursor {
  pos = 0
  constructor(readonly buf: Buffer) {}

  take(n: number): number {
    const at = this.pos
    if (n > this.buf.length - at) throw new Malformed(`a field runs past the end of the frame (${n} bytes at ${at} of ${this.buf.length})`)
    this.pos += n
    return at
  }
  u8(): number {
    return this.buf[this.take(1)]!
  }
  u32(): number {
    return this.buf.readUInt32LE(this.take(4))
  }
  f64(): number {
    return this.buf.readDoubleLE(this.take(8))
  }
  str(): string | undefined {
    // Tag, length and bytes checked in one place, not through u8/u32/take: a fan-out decodes two strings a
    // call, mostly while V8 still interprets this code (a young process), where each call is a frame.
    const buf = this.buf as RawBuffer
    const at = this.pos
    if (at >= buf.length) throw new Malformed(`a string runs past the end of the frame (at ${at} of ${buf.length})`)
    const tag = buf[at]!
    if (tag === ABSENT) {
      this.pos = at + 1
      return undefined
    }
    if (tag !== STRING_UTF8 && tag !== STRING_UTF16) throw new Malformed(`unknown string tag ${tag}`)
    if (buf.length - at < 5) throw new Malformed(`a string's length runs past the end of the frame (at ${at} of ${buf.length})`)
    const n = buf.readUInt32LE(at + 1)
    const start = at + 5
    if (n > buf.length - start) throw new Malformed(`a field runs past the end of the frame (${n} bytes at ${start} of ${buf.length})`)
    this.pos = start + n
    return tag === STRING_UTF8 ? buf.utf8Slice(start, start + n) : buf.ucs2Slice(start, start + n)
  }
  text(): string {
    const s = this.str()
    if (s === undefined) throw new Malformed('a required string is absent')
    return s
  }
  json(): unknown {
    const s = this.str()
    return s === undefined ? undefined : JSON.parse(s)
  }
  logs(): LogEntry[] | undefined {
    if (this.u8() === ABSENT) return undefined
    const n = this.u32()
    const out: LogEntry[] = []
    for (let i = 0; i < n; i++) {
      const level = LEVELS[this.u8()]
      if (level === undefined) throw new Malformed('unknown console level')
      out.push({ level, text: this.text() })
    }
    return out
  }
}

export type Decoded<T> = { ok: true; message: T } | { ok: false; error: string }

/** A frame's body (without its length prefix) from the child. */
export function decodeFromChild(body: Buffer): Decoded<FromChild> {
  return decode(body, (c, kind): FromChild => {
    switch (kind) {
      case M.ready:
        return [kind, c.f64()]
      case M.call: {
        const id = c.f64()
        const calls: CallRequest[] = []
        for (let i = 0, n = c.u32(); i < n; i++) calls.push([c.f64(), c.text(), c.text()])
        return [kind, id, calls, c.logs()]
      }
      case M.log:
        return [kind, c.f64(), c.logs() ?? []]
      case M.done: {
        const id = c.f64()
        const valueJson = c.str()
        const rest: unknown = c.json()
        // A `rest` that is no outcome stays unreadable for the caller to judge (index.ts), as before.
        const outcome = (
          typeof rest === 'object' && rest !== null && (rest as { ok?: unknown }).ok === true ? { ...rest, valueJson } : rest
        ) as SandboxOutcome
        const logs = c.logs()
        const ms = c.f64()
        return [kind, id, outcome, logs, Number.isNaN(ms) ? undefined : ms]
      }
      default:
        throw new Malformed(`unknown message kind ${kind}`)
    }
  })
}

/** A frame's body (without its length prefix) from the supervisor. */
export function decodeToChild(body: Buffer): Decoded<ToChild> {
  return decode(body, (c, kind): ToChild => {
    switch (kind) {
      case M.run: {
        const id = c.f64()
        const js = c.text()
        const parts = c.json()
        if (!Array.isArray(parts)) throw new Malformed('a run without its settings')
        const [toolNames, limits, session, entropy] = parts as [string[], SandboxLimits, SandboxSessionRef | null, SandboxEntropy | null]
        return [kind, id, js, toolNames, limits, session ?? undefined, entropy ?? undefined]
      }
      case M.result: {
        const id = c.f64()
        const answers: CallAnswer[] = []
        for (let i = 0, n = c.u32(); i < n; i++) answers.push([c.f64(), c.text()])
        return [kind, id, answers]
      }
      case M.abort:
        return [kind, c.f64()]
      case M.endSession:
        return [kind, c.text()]
      case M.hold:
        return [kind, c.f64(), c.u8() === 1]
      default:
        throw new Malformed(`unknown message kind ${kind}`)
    }
  })
}

function decode<T>(body: Buffer, read: (c: Cursor, kind: number) => T): Decoded<T> {
  const c = new Cursor(body)
  try {
    const message = read(c, c.u8())
    if (c.pos !== body.length) return { ok: false, error: `${body.length - c.pos} bytes left over after a message` }
    return { ok: true, message }
  } catch (e) {
    // Malformed, a JSON syntax error, or a string too long for V8: all a frame that is not a message.
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

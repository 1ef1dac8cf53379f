/**
 * The host's end of a runner's stdio: one hijacked attach connection. Docker multiplexes stdout and stderr
 * on it when Tty is off (8-byte frame headers: stream, 0, 0, 0, big-endian length); stdout carries the
 * protocol's lines, stderr a capped tail kept for diagnostics (Node's fatal "heap out of memory" lands there).
 */
import type { Duplex } from 'node:stream'
import type Docker from 'dockerode'
import { LineSplitter, MAX_LINE_BYTES, parseLine, type FromRunner, type ToRunner } from './protocol.js'
import { noncePrefix } from './wire-messages.js'

const STDERR_TAIL = 8 * 1024

const LATE_READY = /^\{"type":"ready","node":"[^"]*","uid":\d+,"pid":\d+\}$/

export class RunnerChannel {
  /** Who reads the runner's messages right now (the pool while warming, then one run). */
  handler: ((msg: FromRunner) => void) | undefined
  /** Set when the runner broke the protocol (an over-long line); the container is then not trusted. */
  protocolError: string | undefined
  /**
   * Lines dropped since `requireNonce` because they did not carry the run's nonce: whatever the program
   * wrote to fd 1 itself (forged messages included). Counted, never parsed, never kept.
   */
  readonly stray = { lines: 0, bytes: 0 }
  private prefix: string | undefined
  readonly closed: Promise<void>
  private stderr = ''
  private isClosed = false
  private readonly closeListeners = new Set<() => void>()

  private constructor(private readonly socket: Duplex) {
    const lines = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => {
        if (line.length === 0) return
        let body = line
        if (this.prefix !== undefined) {
          if (!line.startsWith(this.prefix)) {
            // A late answer to a start-up `hello` (sent before the run, read after it) is not the program's output.
            if (LATE_READY.test(line)) return
            this.stray.lines++
            this.stray.bytes += Buffer.byteLength(line) + 1
            return
          }
          body = line.slice(this.prefix.length)
        }
        const msg = parseLine(body)
        if (msg && this.handler) this.handler(msg)
      },
      () => {
        this.protocolError = `the runner sent a message over ${MAX_LINE_BYTES} bytes`
        this.destroy()
      },
    )
    let header = Buffer.alloc(0)
    let want = 0
    let stream = 0
    // Docker's multiplexed stream, parsed incrementally.
    socket.on('data', (chunk: Buffer) => {
      let buf = header.length > 0 ? Buffer.concat([header, chunk]) : chunk
      header = Buffer.alloc(0)
      while (buf.length > 0) {
        if (want === 0) {
          if (buf.length < 8) {
            header = Buffer.from(buf)
            return
          }
          stream = buf[0] ?? 0
          want = buf.readUInt32BE(4)
          buf = buf.subarray(8)
          continue
        }
        const piece = buf.subarray(0, want)
        want -= piece.length
        buf = buf.subarray(piece.length)
        if (stream === 2) this.stderr = (this.stderr + piece.toString('utf8')).slice(-STDERR_TAIL)
        else lines.push(piece)
      }
    })
    this.closed = new Promise((resolve) => {
      const done = () => {
        if (this.isClosed) return
        this.isClosed = true
        for (const listener of this.closeListeners) listener()
        resolve()
      }
      socket.on('end', done)
      socket.on('close', done)
      socket.on('error', done)
    })
  }

  /** Attach to a created (not yet started) container, so no output is missed. */
  static async attach(container: Docker.Container): Promise<RunnerChannel> {
    const stream = await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })
    return new RunnerChannel(stream as unknown as Duplex)
  }

  /** From now on only lines starting with `nonce` are messages (set as the run is sent; one run per container). */
  requireNonce(nonce: string): void {
    this.prefix = noncePrefix(nonce)
  }

  get isOpen(): boolean {
    return !this.isClosed
  }

  send(msg: ToRunner): boolean {
    if (this.isClosed) return false
    this.socket.write(JSON.stringify(msg) + '\n')
    return true
  }

  onClose(listener: () => void): () => void {
    if (this.isClosed) {
      queueMicrotask(listener)
      return () => {}
    }
    this.closeListeners.add(listener)
    return () => this.closeListeners.delete(listener)
  }

  stderrTail(): string {
    return this.stderr
  }

  destroy(): void {
    this.socket.destroy()
  }
}

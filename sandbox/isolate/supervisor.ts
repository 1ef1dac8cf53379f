/**
 * The caller's side of the child process: spawn it (a clean environment but for glibc's arena count,
 * `--no-node-snapshot`, a pipe on its fd 3 for the protocol's frames), wait for its ready message, keep the
 * tail of its stderr (V8 says "out of memory" there before it aborts), and report its death once its
 * streams are closed. A child that sends what is not a frame of the protocol is broken: it is killed, and
 * its exit says why.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { decodeFromChild, encodeFrame } from './frame.js'
import { FrameReader, KINDS_FROM_CHILD } from './frame-reader.js'
import { lockdownV8Flags } from './lockdown.js'
import { type ChildConfig, type FromChild, M, type ToChild } from './protocol.js'

/** How long a child may take to load isolated-vm and say it is ready. */
const READY_TIMEOUT_MS = 15_000
const STDERR_TAIL_BYTES = 8192
/** The protocol's fd in the child (child.ts opens it): stdin and stdout stay unused, stderr is read. */
export const CHANNEL_FD = 3

/**
 * The child's own footprint (its RSS is steady-state, nothing leaks; bench/runtime.ts's RSS row):
 * - `--max-semi-space-size=1`: the child's own V8 heap (protocol messages, short-lived) otherwise grows its
 *   young generation to 4 MB semi-spaces and keeps them resident (8 MB → 2 MB). isolated-vm resets the flag
 *   once it is loaded, so the program isolates keep the young generation isolated-vm gives them by memory limit.
 * - `MALLOC_ARENA_MAX=2`: isolated-vm runs each isolate's tasks on pool threads, and glibc gives each thread
 *   that allocates its own malloc arena (~2 MB less with two). Nothing else is in the environment.
 */
const CHILD_MEMORY_FLAGS: readonly string[] = ['--max-semi-space-size=1']
const CHILD_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' }

export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** V8 ran out of memory (its fatal-error text is on stderr). */
  outOfMemory: boolean
  stderrTail: string
  /** Set when this side killed the child for breaking the protocol (a malformed or oversized frame): what it sent. */
  broken: string | undefined
}

export interface ChildListener {
  message(message: FromChild, child: SupervisedChild): void
  exit(exit: ChildExit, child: SupervisedChild): void
}

export class SupervisedChild {
  readonly #process: ChildProcess
  /** Both directions of the protocol: a socket pair on the child's CHANNEL_FD. */
  readonly #channel: (Readable & Writable) | undefined
  #stderr = ''
  #exited = false
  #broken: string | undefined
  /** What `hold` last said (unset: spawned, held by Node's default). */
  #held: boolean | undefined
  /** Resolves once the process is gone and its streams are closed. */
  readonly closed: Promise<ChildExit>

  private constructor(process: ChildProcess, listener: ChildListener) {
    this.#process = process
    process.stderr?.setEncoding('utf8')
    process.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_BYTES)
    })
    this.#channel = process.stdio[CHANNEL_FD] as (Readable & Writable) | undefined
    const reader = new FrameReader(
      KINDS_FROM_CHILD,
      (body) => {
        if (this.#broken) return
        const decoded = decodeFromChild(body)
        if (decoded.ok) listener.message(decoded.message, this)
        else this.#breakOff(`it sent a malformed message: ${decoded.error}`)
      },
      (error) => this.#breakOff(`it broke the protocol: ${error}`),
    )
    this.#channel?.on('data', (chunk: Buffer) => reader.push(chunk))
    // EPIPE when the child is gone: its death is reported by 'close' below.
    this.#channel?.on('error', () => {})
    // 'error' also fires when a signal cannot be delivered; the close event still reports the end.
    process.on('error', () => {})
    this.closed = new Promise((resolve) => {
      process.once('close', (code, signal) => {
        this.#exited = true
        const exit: ChildExit = {
          code,
          signal,
          outOfMemory: /out of memory|allocation failed|OOM/i.test(this.#stderr),
          stderrTail: this.#stderr,
          broken: this.#broken,
        }
        listener.exit(exit, this)
        resolve(exit)
      })
    })
  }

  /** Spawn and wait until the child is ready. Resolves to an error message when it cannot start. */
  static async spawn(entry: string, config: ChildConfig, listener: ChildListener): Promise<SupervisedChild | string> {
    let child: ChildProcess
    try {
      child = spawn(process.execPath, ['--no-node-snapshot', ...lockdownV8Flags(), ...CHILD_MEMORY_FLAGS, entry, JSON.stringify(config)], {
        env: { ...CHILD_ENV },
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
        windowsHide: true,
      })
    } catch (e) {
      return `could not spawn the isolate process: ${e instanceof Error ? e.message : String(e)}`
    }
    let ready = false
    let onReady = () => {}
    const readyOrFailed = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(`the isolate process did not start within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS)
      child.once('error', (e) => resolve(`could not spawn the isolate process: ${e.message}`))
      onReady = () => {
        clearTimeout(timer)
        resolve(undefined)
      }
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        const broken = supervised.#broken
        resolve(
          `the isolate process ${broken ? `was killed while starting: ${broken}` : `exited while starting (${signal ?? `exit code ${code}`})`}`,
        )
      })
    })
    const supervised: SupervisedChild = new SupervisedChild(child, {
      message: (m, self) => {
        if (ready) listener.message(m, self)
        else if (m[0] === M.ready) {
          ready = true
          onReady()
        }
      },
      exit: (e, self) => {
        if (ready) listener.exit(e, self)
      },
    })
    const failure = await readyOrFailed
    if (failure === undefined) return supervised
    if (child.pid === undefined) return failure
    supervised.kill()
    await supervised.closed
    const tail = supervised.#stderr.trim().split('\n').slice(-5).join('\n')
    return tail ? `${failure}: ${tail}` : failure
  }

  get pid(): number | undefined {
    return this.#process.pid
  }

  get alive(): boolean {
    return !this.#exited
  }

  send(message: ToChild): void {
    const channel = this.#channel
    if (this.#exited || !channel || channel.destroyed || !channel.writable) return
    channel.write(encodeFrame(message))
  }

  kill(): void {
    if (!this.#exited) this.#process.kill('SIGKILL')
  }

  /** The child sent what is not the protocol: nothing more of it is read, and it is killed. */
  #breakOff(why: string): void {
    this.#broken ??= why
    this.kill()
  }

  /** Keep (or stop keeping) the caller's event loop alive for this child: only while runs are in flight. */
  hold(held: boolean): void {
    // Every run starts and ends with one: the handles change only when the answer does (six native calls a run).
    if (this.#held === held) return
    this.#held = held
    type Handle = { ref?(): void; unref?(): void } | null | undefined
    const handles: Handle[] = [this.#channel as Handle, this.#process.stderr as Handle]
    if (held) this.#process.ref()
    else this.#process.unref()
    for (const handle of handles) {
      if (held) handle?.ref?.()
      else handle?.unref?.()
    }
  }
}

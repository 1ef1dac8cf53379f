/**
 * The caller's side of the child process: spawn it (a clean environment but for glibc's arena count,
 * `--no-node-snapshot`, IPC), wait for its ready message, keep the tail of its stderr (V8 says "out of
 * memory" there before it aborts), and report its death once its streams are closed.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { LOCKDOWN_V8_FLAGS } from './lockdown.js'
import { type ChildConfig, type FromChild, M, type ToChild } from './protocol.js'

/** How long a child may take to load isolated-vm and say it is ready. */
const READY_TIMEOUT_MS = 15_000
const STDERR_TAIL_BYTES = 8192

/**
 * The child's own footprint (its RSS is steady-state, nothing leaks; bench/runtime.ts's RSS row):
 * - `--max-semi-space-size=1`: the child's own V8 heap (IPC messages, short-lived) otherwise grows its young
 *   generation to 4 MB semi-spaces and keeps them resident (8 MB → 2 MB). isolated-vm resets the flag once
 *   it is loaded, so the program isolates keep the young generation isolated-vm gives them by memory limit.
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
}

export interface ChildListener {
  message(message: FromChild, child: SupervisedChild): void
  exit(exit: ChildExit, child: SupervisedChild): void
}

export class SupervisedChild {
  readonly #process: ChildProcess
  #stderr = ''
  #exited = false
  /** Resolves once the process is gone and its streams are closed. */
  readonly closed: Promise<ChildExit>

  private constructor(process: ChildProcess, listener: ChildListener) {
    this.#process = process
    process.stderr?.setEncoding('utf8')
    process.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_BYTES)
    })
    process.on('message', (message) => listener.message(message as FromChild, this))
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
      child = spawn(process.execPath, ['--no-node-snapshot', ...LOCKDOWN_V8_FLAGS, ...CHILD_MEMORY_FLAGS, entry, JSON.stringify(config)], {
        env: { ...CHILD_ENV },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
        windowsHide: true,
      })
    } catch (e) {
      return `could not spawn the isolate process: ${e instanceof Error ? e.message : String(e)}`
    }
    let ready = false
    const readyOrFailed = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(`the isolate process did not start within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS)
      child.once('error', (e) => resolve(`could not spawn the isolate process: ${e.message}`))
      child.on('message', (m) => {
        if (!ready && Array.isArray(m) && (m as FromChild)[0] === M.ready) {
          ready = true
          clearTimeout(timer)
          resolve(undefined)
        }
      })
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        resolve(`the isolate process exited while starting (${signal ?? `exit code ${code}`})`)
      })
    })
    const supervised = new SupervisedChild(child, {
      message: (m, self) => {
        if (ready) listener.message(m, self)
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
    if (this.#exited || !this.#process.connected) return
    this.#process.send(message)
  }

  kill(): void {
    if (!this.#exited) this.#process.kill('SIGKILL')
  }

  /** Keep (or stop keeping) the caller's event loop alive for this child: only while runs are in flight. */
  hold(held: boolean): void {
    type Handle = { ref?(): void; unref?(): void } | null | undefined
    const handles: Handle[] = [this.#process.channel as Handle, this.#process.stderr as Handle]
    if (held) this.#process.ref()
    else this.#process.unref()
    for (const handle of handles) {
      if (held) handle?.ref?.()
      else handle?.unref?.()
    }
  }
}

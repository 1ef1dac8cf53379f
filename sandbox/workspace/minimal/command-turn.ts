/**
 * One command's turn in a persistent shell, wherever the shell runs: the command crosses as base64 and is
 * `eval`ed by the shell itself (a syntax error is the command's own error, never a shell left waiting for a
 * closing quote), with stdin from /dev/null; a random nonce printed after it on both streams marks its end
 * and carries its exit status. Past the timeout, or on abort, the shell's `kill` ends the command's
 * processes; a shell that then still does not answer (busy in a builtin) is given up on.
 */
import { randomBytes } from 'node:crypto'
import { classifyDenial } from '../bwrap.js'
import type { Section, SentinelStream } from './sentinel-stream.js'
import { WorkspaceError } from '../ops.js'
import type { PersistentShell, ShellRun } from './shell.js'

/** How long a shell whose command's processes were killed may take to answer before it is given up on. */
const ANSWER_GRACE_MS = 2_000

export interface ShellIo {
  out: SentinelStream
  err: SentinelStream
  write(text: string): void
  /** Resolves when the shell has ended. */
  exited(): Promise<'exit'>
  /** Kills every process the command started; the shell itself stays. */
  kill(): void | Promise<void>
}

export interface Turn {
  /** Both streams' sections, or how the shell was lost (`exit`: it ended; `grace`: it did not answer). */
  done: [Section, Section] | 'exit' | 'grace'
  why: 'timeout' | 'abort' | undefined
}

export async function commandTurn(io: ShellIo, command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<Turn> {
  const nonce = `__codeact_${randomBytes(12).toString('hex')}`
  const b64 = Buffer.from(command, 'utf8').toString('base64')
  const sections = Promise.all([io.out.next(`${nonce}:`, maxChars), io.err.next(nonce, maxChars)])
  io.write(`eval "$(printf %s '${b64}' | base64 -d)" </dev/null; printf '${nonce}:%d\\n' "$?"; printf '${nonce}\\n' >&2\n`)
  let why: 'timeout' | 'abort' | undefined
  let stopped: () => void = () => {}
  const stopPromise = new Promise<'stop'>((r) => (stopped = () => r('stop')))
  const stop = (w: 'timeout' | 'abort') => () => {
    why ??= w
    void Promise.resolve(io.kill()).then(stopped, stopped)
  }
  const timer = setTimeout(stop('timeout'), timeoutMs)
  const onAbort = stop('abort')
  signal?.addEventListener('abort', onAbort, { once: true })
  let done: Turn['done'] | 'stop' = await Promise.race([sections, io.exited(), stopPromise])
  clearTimeout(timer)
  signal?.removeEventListener('abort', onAbort)
  // Killed children: the shell answers at once unless it is itself the one busy.
  if (done === 'stop') done = await Promise.race([sections, io.exited(), delay(ANSWER_GRACE_MS)])
  return { done, why }
}

export function delay(ms: number): Promise<'grace'> {
  return new Promise((r) => setTimeout(() => r('grace'), ms).unref())
}

/** One command's answer from its two sections; a refusal in its stderr is named (`showLine`: as the model sees paths). */
export function shellRun(
  o: Section,
  e: Section,
  timedOut: boolean,
  readOnly: readonly string[],
  showLine: (line: string) => string = (line) => line,
): ShellRun {
  const run: ShellRun = {
    stdout: o.text,
    stderr: e.text,
    exitCode: Number.parseInt(o.status, 10),
    timedOut,
    truncated: o.truncated || e.truncated,
    lost: false,
  }
  const denial = classifyDenial(e.text, readOnly)
  if (denial) {
    run.denied = denial.code
    run.deniedMessage = showLine(denial.line)
  }
  return run
}

/**
 * What every persistent shell shares, wherever it runs: one command at a time in the order asked, the
 * watch on its end, and a turn's answer — or, when the shell was lost with it, what it printed so far.
 */
export abstract class TurnShell implements PersistentShell {
  protected exited = false
  protected ending = false
  #exitWaiters: Array<() => void> = []
  #queue: Promise<unknown> = Promise.resolve()
  protected abstract readonly io: ShellIo

  get alive(): boolean {
    return !this.exited && !this.ending
  }

  abstract close(): void | Promise<void>
  /** Throws when the shell cannot take a command now. */
  protected abstract before(): Promise<void>
  /** The names a denial is matched against, and a stderr line as the model sees its paths. */
  protected abstract readOnly(): readonly string[]
  protected showLine?: (line: string) => string
  /** The exit code of a lost turn (`why`: the turn was stopped), or an error when the shell never started. */
  protected abstract lostExit(why: 'timeout' | 'abort' | undefined, stderr: string): number | null

  run(command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<ShellRun> {
    const next = this.#queue.then(() => this.#runNow(command, timeoutMs, maxChars, signal))
    this.#queue = next.catch(() => {})
    return next
  }

  protected onExit(): void {
    if (this.exited) return
    this.exited = true
    for (const w of this.#exitWaiters.splice(0)) w()
  }

  protected exitPromise(): Promise<'exit'> {
    return new Promise((r) => (this.exited ? r('exit') : this.#exitWaiters.push(() => r('exit'))))
  }

  async #runNow(command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<ShellRun> {
    await this.before()
    if (signal?.aborted) throw new WorkspaceError('ECANCELED', 'cancelled before the command started')
    const { done, why } = await commandTurn(this.io, command, timeoutMs, maxChars, signal)
    if (done === 'exit' || done === 'grace') return this.#lost(why)
    if (why === 'abort') throw new WorkspaceError('ECANCELED', 'the command was cancelled and killed')
    return shellRun(done[0], done[1], why === 'timeout', this.readOnly(), this.showLine)
  }

  #lost(why: 'timeout' | 'abort' | undefined): ShellRun {
    void this.close()
    const o = this.io.out.abandon()
    const e = this.io.err.abandon()
    const exitCode = this.lostExit(why, e.text)
    if (why === 'abort') throw new WorkspaceError('ECANCELED', 'the command was cancelled; the shell was ended with it')
    return { stdout: o.text, stderr: e.text, exitCode, timedOut: why === 'timeout', truncated: o.truncated || e.truncated, lost: true }
  }
}

/**
 * A persistent bash for Minimal mode: one long-lived shell inside the same bubblewrap confinement as the
 * `bash` tool (bwrap.ts's argv, read-only binds and pids cgroup), fed one command at a time, so `cd`,
 * `export`, shell functions and background jobs carry over from call to call.
 *
 * Each command crosses as base64 text and is `eval`ed by the shell itself (a syntax error is the command's
 * own error, never a shell left waiting for a closing quote), with stdin from /dev/null; a random nonce
 * printed after it on both streams marks its end and carries its exit status.
 *
 * A command past its timeout has every process beneath the shell killed (the shell itself lives on with
 * its state); a shell busy in a builtin loop that still does not answer is ended, and the next command
 * starts a fresh one. bwrap dies with its parent and takes its PID namespace with it: a killed host
 * leaves no shell.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { bwrapArgs, readOnlyNames } from '../bwrap.js'
import { WorkspaceError, type WorkspaceConfig } from '../ops.js'
import { createPidsCgroup, type PidsCgroup } from '../pids-limit.js'
import { prepareReadOnlyBinds, type ReadOnlyBinds } from '../readonly-binds.js'
import { DEFAULT_BASH_MAX_PROCESSES } from '../bwrap.js'
import { descendants, findShell, killAll } from './proc-tree.js'
import { commandTurn, shellRun, type ShellIo } from './command-turn.js'
import { SentinelStream, type Section } from './sentinel-stream.js'
import type { PersistentShell, ShellRun } from './shell.js'

export interface ShellStart {
  config: WorkspaceConfig
  bwrapPath: string
}

const WRAPPER = '{ ulimit -u "$1" || ulimit -p "$1"; } 2>/dev/null; printf 1 >&3 && exec 3>&- && exec /bin/bash --noprofile --norc'

export class ShellSession implements PersistentShell {
  private readonly child: ChildProcess
  private readonly out: SentinelStream
  private readonly err: SentinelStream
  private readonly io: ShellIo
  private readonly binds: ReadOnlyBinds
  private readonly cgroup: PidsCgroup | undefined
  private started = false
  private exited = false
  private ending = false
  private exitWaiters: Array<() => void> = []
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: ShellStart) {
    const { config, bwrapPath } = opts
    if (!config.exec) throw new WorkspaceError('EPERM', 'bash is turned off for this workspace (exec disabled)')
    if (bwrapPath.includes('/') && !existsSync(bwrapPath))
      throw new WorkspaceError('SANDBOX_UNAVAILABLE', `bubblewrap not found at ${bwrapPath}; install it or pass its path as bwrapPath`)
    const maxProcesses = config.maxProcesses ?? DEFAULT_BASH_MAX_PROCESSES
    this.binds = prepareReadOnlyBinds(config)
    this.cgroup = createPidsCgroup(maxProcesses)
    const argv = [...bwrapArgs(config, config.root, this.binds.args), '--', '/bin/sh', '-c', WRAPPER, 'codeact', String(maxProcesses)]
    const [file, args] = this.cgroup
      ? ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', this.cgroup.procsFile, bwrapPath, ...argv]]
      : [bwrapPath, argv]
    this.child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], env: {}, detached: true })
    this.child.stdin?.on('error', () => {}) // a dead shell's EPIPE: the exit handler reports it
    this.child.stdio[3]?.on('data', () => {
      this.started = true
    })
    this.out = new SentinelStream(this.child.stdout!, 64 * 1024)
    this.err = new SentinelStream(this.child.stderr!, 64 * 1024)
    this.child.on('error', () => this.onExit())
    this.child.on('close', () => this.onExit())
    this.io = {
      out: this.out,
      err: this.err,
      write: (text) => void this.child.stdin?.write(text),
      exited: () => this.exitPromise(),
      kill: () => {
        const shell = this.child.pid === undefined ? undefined : findShell(this.child.pid)
        if (shell !== undefined) killAll(descendants(shell))
      },
    }
  }

  get alive(): boolean {
    return !this.exited && !this.ending
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  /** One command at a time, in the order asked. */
  run(command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<ShellRun> {
    const next = this.queue.then(() => this.runNow(command, timeoutMs, maxChars, signal))
    this.queue = next.catch(() => {})
    return next
  }

  /** Ends the shell and everything it started; idempotent. */
  close(): void {
    this.ending = true
    if (this.child.pid !== undefined && !this.exited) {
      try {
        process.kill(-this.child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }

  private onExit(): void {
    if (this.exited) return
    this.exited = true
    this.binds.release()
    void this.cgroup?.release()
    for (const w of this.exitWaiters.splice(0)) w()
  }

  private exitPromise(): Promise<'exit'> {
    return new Promise((r) => (this.exited ? r('exit') : this.exitWaiters.push(() => r('exit'))))
  }

  private async runNow(command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<ShellRun> {
    if (this.exited) throw new WorkspaceError('EIO', 'the shell has ended; run the command again to start a new one')
    if (signal?.aborted) throw new WorkspaceError('ECANCELED', 'cancelled before the command started')
    const { done, why } = await commandTurn(this.io, command, timeoutMs, maxChars, signal)
    if (done === 'exit' || done === 'grace') return this.lost(why)
    if (why === 'abort') throw new WorkspaceError('ECANCELED', 'the command was cancelled and killed')
    return this.finish(done[0], done[1], why === 'timeout')
  }

  private lost(why: 'timeout' | 'abort' | undefined): ShellRun {
    const wasStarted = this.started
    this.close()
    const o = this.out.abandon()
    const e = this.err.abandon()
    if (!wasStarted) throw new WorkspaceError('SANDBOX_UNAVAILABLE', `bubblewrap could not start the shell (${e.text.trim().slice(-300)})`)
    if (why === 'abort') throw new WorkspaceError('ECANCELED', 'the command was cancelled; the shell was ended with it')
    const status = this.child.exitCode
    return {
      stdout: o.text,
      stderr: e.text,
      exitCode: why ? null : status,
      timedOut: why === 'timeout',
      truncated: o.truncated || e.truncated,
      lost: true,
    }
  }

  private finish(o: Section, e: Section, timedOut: boolean): ShellRun {
    return shellRun(o, e, timedOut, readOnlyNames(this.opts.config, this.binds.placeholders))
  }
}

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
import { bwrapArgs, DEFAULT_BASH_MAX_PROCESSES, readOnlyNames } from '../bwrap.js'
import { WorkspaceError, type WorkspaceConfig } from '../ops.js'
import { createPidsCgroup, type PidsCgroup } from '../pids-limit.js'
import { prepareReadOnlyBinds, type ReadOnlyBinds } from '../readonly-binds.js'
import { descendants, findShell, killAll } from './proc-tree.js'
import { TurnShell, type ShellIo } from './command-turn.js'
import { SentinelStream } from './sentinel-stream.js'

export interface ShellStart {
  config: WorkspaceConfig
  bwrapPath: string
}

const WRAPPER = '{ ulimit -u "$1" || ulimit -p "$1"; } 2>/dev/null; printf 1 >&3 && exec 3>&- && exec /bin/bash --noprofile --norc'

export class ShellSession extends TurnShell {
  private readonly child: ChildProcess
  protected readonly io: ShellIo
  private readonly binds: ReadOnlyBinds
  private readonly cgroup: PidsCgroup | undefined
  private started = false

  constructor(private readonly opts: ShellStart) {
    super()
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
    this.child.on('error', () => this.onExit())
    this.child.on('close', () => this.onExit())
    this.io = {
      out: new SentinelStream(this.child.stdout!, 64 * 1024),
      err: new SentinelStream(this.child.stderr!, 64 * 1024),
      write: (text) => void this.child.stdin?.write(text),
      exited: () => this.exitPromise(),
      kill: () => {
        const shell = this.child.pid === undefined ? undefined : findShell(this.child.pid)
        if (shell !== undefined) killAll(descendants(shell))
      },
    }
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

  protected override onExit(): void {
    if (this.exited) return
    this.binds.release()
    void this.cgroup?.release()
    super.onExit()
  }

  protected async before(): Promise<void> {
    if (this.exited) throw new WorkspaceError('EIO', 'the shell has ended; run the command again to start a new one')
  }

  protected lostExit(why: 'timeout' | 'abort' | undefined, stderr: string): number | null {
    if (!this.started)
      throw new WorkspaceError('SANDBOX_UNAVAILABLE', `bubblewrap could not start the shell (${stderr.trim().slice(-300)})`)
    return why ? null : this.child.exitCode
  }

  protected readOnly(): readonly string[] {
    return readOnlyNames(this.opts.config, this.binds.placeholders)
  }
}

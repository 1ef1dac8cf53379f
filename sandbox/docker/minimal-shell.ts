/**
 * Minimal mode's persistent bash inside a codeact container: the Docker backend's hardened container
 * (spec.ts: no capabilities, read-only root, no network unless asked, pids/memory/CPU limits, the
 * workspace bind mounts of mount.ts, the owner labels the reaper reads) with bash as its entrypoint, fed
 * through the container's own stdin, so cwd, environment, functions and jobs carry over. One container per
 * shell; it is removed when the shell ends. A host that dies closes the attach stream: stdin ends
 * (StdinOnce), bash exits, and the stopped container is the reaper's, as any orphan of a dead owner.
 *
 * Commands cross as in shell-session.ts (base64, `eval`, a nonce on both streams). A command past its
 * timeout has every process of the container but init and the shell killed by a `docker exec` (the shell
 * lives on); a shell that still does not answer (a builtin loop) is ended with its container.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { PassThrough, type Duplex } from 'node:stream'
import type Docker from 'dockerode'
import { readOnlyNames } from '../workspace/bwrap.js'
import type { ShellHost } from '../workspace/minimal/index.js'
import { delay, TurnShell, type ShellIo } from '../workspace/minimal/command-turn.js'
import { SentinelStream } from '../workspace/minimal/sentinel-stream.js'
import { WorkspaceError, type WorkspaceConfig } from '../workspace/ops.js'
import { connectEngine, describeEngineError, type Engine } from './engine.js'
import { accessProblem, workspaceMount, type WorkspaceMount } from './mount.js'
import { resolveOptions, type DockerSandboxOptions } from './options.js'
import { reapOrphans } from './reaper.js'
import { removeContainer } from './spawn.js'
import { containerSpec, containerUser } from './spec.js'
import { toWorkspaceText } from './workspace-ops.js'

/** A shell's container memory when the Docker options set none: room for compilers and test runners. */
export const DEFAULT_SHELL_MEMORY_MB = 512
/** Kills every process of the container but init (1), the shell ($1) and itself. */
const KILL_SCRIPT = 'for d in /proc/[0-9]*; do p=${d#/proc/}; case $p in 1|"$1"|$$) ;; *) kill -KILL "$p" 2>/dev/null;; esac; done; true'

interface Start {
  engine: Engine
  spec: Docker.ContainerCreateOptions
  mount: WorkspaceMount
  config: WorkspaceConfig
  startTimeoutMs: number
}

/** Orphans of dead hosts are removed once per process, at the first shell (as the backend's first start does). */
let reaped = false

/** The Docker backend's shells for Minimal mode, over the workspace `config` describes. */
export function containerShells(options: DockerSandboxOptions, config: WorkspaceConfig): ShellHost {
  const o = resolveOptions(options)
  const mounted = workspaceMount({
    root: config.root,
    readOnly: config.readOnly,
    ...(options.workspace?.mountAt ? { mountAt: options.workspace.mountAt } : {}),
  })
  if (!mounted.ok) throw new TypeError(`codeact: ${mounted.message}`)
  const { mount } = mounted
  const user = containerUser(options.user, mount)
  const problem = accessProblem(mount, user)
  if (problem) throw new TypeError(`codeact: ${problem}`)
  const connected = connectEngine(options.engine)
  if (!connected.ok) throw new TypeError(`codeact: ${connected.message}`)
  const { engine } = connected
  const base = containerSpec(
    { ...o, network: o.network || config.network },
    o.memoryMb ?? DEFAULT_SHELL_MEMORY_MB,
    user,
    mount,
    randomUUID(),
  )
  const spec = { ...base, Entrypoint: ['/bin/bash', '--noprofile', '--norc'], Cmd: [] }
  return {
    rootAlias: mount.mountAt,
    start: () => {
      if (!reaped) {
        reaped = true
        void reapOrphans(options.engine ? { engine: options.engine } : {}).catch(() => undefined)
      }
      return new ContainerShell({ engine, spec, mount, config, startTimeoutMs: o.startTimeoutMs })
    },
  }
}

class ContainerShell extends TurnShell {
  private container: Docker.Container | undefined
  private stream: Duplex | undefined
  private shellPid = ''
  private readonly outPipe = new PassThrough()
  private readonly errPipe = new PassThrough()
  protected readonly io: ShellIo = {
    out: new SentinelStream(this.outPipe, 64 * 1024),
    err: new SentinelStream(this.errPipe, 64 * 1024),
    write: (t) => void this.stream!.write(t),
    exited: () => this.exitPromise(),
    kill: () => this.killCommand(this.shellPid),
  }
  private readonly ready: Promise<string>
  private removal: Promise<unknown> | undefined
  protected override showLine = (line: string) => toWorkspaceText(this.s.mount, line)

  constructor(private readonly s: Start) {
    super()
    if (!s.config.exec) throw new WorkspaceError('EPERM', 'bash is turned off for this workspace (exec disabled)')
    this.ready = this.boot()
    this.ready.catch(() => this.close())
  }

  close(): Promise<void> {
    this.ending = true
    this.removal ??= this.ready.then(
      () => this.remove(),
      () => this.remove(),
    )
    return this.removal.then(() => {})
  }

  private async remove(): Promise<void> {
    this.stream?.destroy()
    if (this.container) await removeContainer(this.container)
    this.onExit()
  }

  private unavailable(e: unknown, what: string): WorkspaceError {
    return new WorkspaceError('SANDBOX_UNAVAILABLE', describeEngineError(e, what, this.s.engine, this.s.spec.Image ?? ''))
  }

  /** create -> attach -> start -> the shell's pid, printed after a nonce. */
  private async boot(): Promise<string> {
    const { docker } = this.s.engine
    try {
      this.container = await docker.createContainer(this.s.spec)
    } catch (e) {
      throw this.unavailable(e, 'creating the shell container')
    }
    try {
      const stream = (await this.container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as unknown as Duplex
      this.stream = stream
      docker.modem.demuxStream(stream, this.outPipe, this.errPipe)
      stream.on('error', () => this.onExit())
      stream.on('close', () => this.onExit())
      stream.on('end', () => this.onExit())
      await this.container.start()
    } catch (e) {
      throw this.unavailable(e, 'starting the shell container')
    }
    const nonce = `__codeact_${randomBytes(12).toString('hex')}`
    const started = Promise.all([this.io.out.next(`${nonce}:`, 1024), this.io.err.next(nonce, 64 * 1024)])
    this.stream.write(`printf '${nonce}:%d\\n' "$$"; printf '${nonce}\\n' >&2\n`)
    const done = await Promise.race([started, this.exitPromise(), delay(this.s.startTimeoutMs)])
    if (Array.isArray(done)) return done[0].status
    const tail = this.io.err.abandon().text.trim().slice(-300)
    throw new WorkspaceError(
      'SANDBOX_UNAVAILABLE',
      `the shell container did not start${tail ? ` (${tail})` : ''}; is ${this.s.spec.Image} a codeact runner image?`,
    )
  }

  /** Kills the command's processes inside the container (the shell and init stay). */
  private async killCommand(shellPid: string): Promise<void> {
    try {
      const exec = await this.container!.exec({
        Cmd: ['/bin/bash', '-c', KILL_SCRIPT, 'kill', shellPid],
        User: this.s.spec.User ?? '',
        AttachStdout: true,
        AttachStderr: true,
      })
      const stream = await exec.start({ hijack: true, stdin: false })
      stream.resume()
      await new Promise<void>((r) => {
        stream.on('end', r)
        stream.on('close', r)
        stream.on('error', r)
      })
    } catch {
      // The container is gone or the engine does not answer: the grace below ends the shell.
    }
  }

  protected async before(): Promise<void> {
    this.shellPid = await this.ready
    if (this.exited || this.ending) throw new WorkspaceError('EIO', 'the shell has ended; run the command again to start a new one')
  }

  protected lostExit(): null {
    return null
  }

  protected readOnly(): readonly string[] {
    return readOnlyNames(this.s.config, [])
  }
}

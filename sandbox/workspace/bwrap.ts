/**
 * `exec` on the host: a shell command confined by bubblewrap, never unconfined.
 *
 * The command sees the workspace bind-mounted at its own path (read-only parts bound read-only over it),
 * /usr and a few files of /etc read-only, a private /tmp, /proc and /dev, and nothing else of the host:
 * no home, no other projects, no env (--clearenv), no network unless asked, its own PID namespace (when
 * it exits or is killed every process it started dies with it).
 *
 * "Did the command run?" is answered by the command itself: a wrapper shell writes one byte to fd 3 and
 * closes it before exec'ing the user's command. No byte means bwrap failed before it, so any `bwrap:`
 * noise a user's command prints can never pass for SANDBOX_UNAVAILABLE, and vice versa.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import { basename, relative } from 'node:path'
import { WorkspaceError, type ExecRequest, type ExecResult, type WorkspaceConfig } from './ops.js'
import { denialInStderr, type DenialCode } from './denials.js'
import { createPidsCgroup } from './pids-limit.js'
import { prepareReadOnlyBinds } from './readonly-binds.js'
import { Capped } from './capped.js'

/** Size of bash's private /tmp when the workspace does not say (a tmpfs counts against memory). */
export const DEFAULT_BASH_TMP_BYTES = 64 * 1024 * 1024
/** Processes (threads included) one bash command may have at once when the workspace does not say. */
export const DEFAULT_BASH_MAX_PROCESSES = 256

/** The PATH and HOME every confined command gets; nothing else of the host's env. */
export const CONFINED_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
export const CONFINED_HOME = '/tmp'

/** /etc files a shell and common tools need (name lookup, TLS roots, Debian alternatives). Not shadow. */
const ETC = [
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/mime.types',
  '/etc/bash.bashrc',
  '/etc/profile',
]

const INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or pass its path as bwrapPath'

/** /bin, /lib … as the host has them: symlinks into /usr on merged-/usr systems, folders elsewhere. */
function topLevelArgs(): string[] {
  const args: string[] = []
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st
    try {
      st = lstatSync(dir)
    } catch {
      continue
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir)
    else args.push('--ro-bind', dir, dir)
  }
  return args
}

/**
 * The bwrap argv for one command (everything before the wrapper shell). `readOnlyBinds` comes from
 * `prepareReadOnlyBinds` (which may create placeholders); without it, existing read-only paths only.
 */
export function bwrapArgs(config: WorkspaceConfig, cwd: string, readOnlyBinds?: string[]): string[] {
  const args = [
    '--unshare-all',
    ...(config.network ? ['--share-net'] : []),
    // Run as root, bwrap keeps every capability in the new user namespace: enough to
    // `mount -o remount,rw` the read-only binds. Drop them all, always.
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'PATH',
    CONFINED_PATH,
    '--setenv',
    'HOME',
    CONFINED_HOME,
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--ro-bind',
    '/usr',
    '/usr',
    ...topLevelArgs(),
    ...ETC.flatMap((p) => ['--ro-bind-try', p, p]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(config.tmpBytes ?? DEFAULT_BASH_TMP_BYTES),
    '--tmpfs',
    '/tmp',
    // After /tmp: the workspace may itself live under /tmp.
    '--bind',
    config.root,
    config.root,
    ...(readOnlyBinds ?? config.readOnly.flatMap((p) => ['--ro-bind-try', p, p])),
    // bwrap's root is a scratch tmpfs; make it read-only so a write outside the workspace and /tmp is
    // refused (EROFS, reported as a denial) instead of silently landing somewhere that vanishes.
    '--remount-ro',
    '/',
    '--chdir',
    cwd,
  ]
  return args
}

/** A confined command as it ended: its kept output, and whether it started (a byte on fd 3), timed out or was cancelled. */
export interface Confined {
  stdout: Capped
  stderr: Capped
  started: boolean
  timedOut: boolean
  cancelled: boolean
}

/**
 * Watches a confined command's process (its own process group) to its end: its output capped, its
 * timeout and the caller's abort killing the whole group.
 */
export function watchConfined(
  child: ChildProcess,
  request: ExecRequest,
  signal: AbortSignal | undefined,
  onClose: (c: Confined, exitCode: number | null, sig: NodeJS.Signals | null) => void,
): void {
  const c: Confined = {
    stdout: new Capped(request.maxOutputBytes),
    stderr: new Capped(request.maxOutputBytes),
    started: false,
    timedOut: false,
    cancelled: false,
  }
  const kill = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => ((c.timedOut = true), kill()), request.timeoutMs)
  const onAbort = (): void => ((c.cancelled = true), kill())
  signal?.addEventListener('abort', onAbort, { once: true })
  child.stdout?.on('data', (b: Buffer) => c.stdout.push(b))
  child.stderr?.on('data', (b: Buffer) => c.stderr.push(b))
  child.stdio[3]?.on('data', () => void (c.started = true))
  child.on('close', (exitCode, sig) => {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
    onClose(c, exitCode, sig)
  })
}

/** The ExecResult of a confined command that ran, its denial named against `names` (see classifyDenial). */
export function confinedResult(c: Confined, exitCode: number | null, sig: NodeJS.Signals | null, names?: readonly string[]): ExecResult {
  const stderr = c.stderr.text()
  const result: ExecResult = {
    stdout: c.stdout.text(),
    stderr,
    exitCode,
    signal: sig,
    timedOut: c.timedOut,
    truncated: c.stdout.truncated || c.stderr.truncated,
  }
  const denial = classifyDenial(stderr, names)
  if (denial) {
    result.denied = denial.code
    result.deniedMessage = denial.line
  }
  return result
}

/** Why a confined command did not start: the spawn's error, or the last lines bwrap printed, or its exit. */
export function whyNotStarted(c: Confined, exitCode: number | null, sig: NodeJS.Signals | null, spawnError?: Error): string {
  return spawnError ? spawnError.message : c.stderr.text().trim().split('\n').slice(-3).join(' | ') || `exit ${exitCode ?? sig}`
}

/** Refusals that are only the sandbox's when they name a read-only path (a placeholder folder, a bind). */
const READ_ONLY_NAMED = /is a directory|not a directory|file exists|invalid cross-device link/i

/**
 * The denial in a command's stderr, if any. `readOnlyNames`: how the command may have spelled the
 * read-only paths (relative, absolute, a placeholder's own name) — a hard link into one (EXDEV) or a
 * write over a placeholder folder (EISDIR …) is the sandbox refusing, not the command's own mistake.
 */
export function classifyDenial(stderr: string, readOnlyNames: readonly string[] = []): { code: DenialCode; line: string } | undefined {
  const denied = denialInStderr(stderr)
  if (denied !== undefined) return denied
  const lines = stderr.split('\n')
  const named = lines.find((l) => READ_ONLY_NAMED.test(l) && readOnlyNames.some((n) => l.includes(n)))
  return named === undefined ? undefined : { code: 'EROFS', line: named.trim() }
}

export function readOnlyNames(config: WorkspaceConfig, placeholders: readonly string[]): string[] {
  const names = config.readOnly.filter((p) => p !== config.root).flatMap((p) => [p, relative(config.root, p)])
  return [...names, ...placeholders.map((p) => basename(p))]
}

export function runConfined(config: WorkspaceConfig, bwrapPath: string, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
  if (!config.exec) return Promise.reject(new WorkspaceError('EPERM', 'running commands is turned off for this workspace'))
  if (signal?.aborted) return Promise.reject(new WorkspaceError('ECANCELED', 'cancelled before the command started'))
  if (bwrapPath.includes('/') && !existsSync(bwrapPath)) {
    return Promise.reject(
      new WorkspaceError('SANDBOX_UNAVAILABLE', `bubblewrap not found at ${bwrapPath}; the command did not run. To fix: ${INSTALL_HINT}`),
    )
  }
  const maxProcesses = config.maxProcesses ?? DEFAULT_BASH_MAX_PROCESSES
  const binds = prepareReadOnlyBinds(config)
  const cgroup = createPidsCgroup(maxProcesses)
  const argv = [
    ...bwrapArgs(config, request.cwd, binds.args),
    // ulimit -u (dash says -p): see pids-limit.ts; it binds a non-root user, root is held by the cgroup.
    '--',
    '/bin/sh',
    '-c',
    '{ ulimit -u "$2" || ulimit -p "$2"; } 2>/dev/null; printf 1 >&3 && exec 3>&- && exec /bin/bash -c "$1"',
    'codeact',
    request.command,
    String(maxProcesses),
  ]
  // The command joins its cgroup before bwrap starts: nothing it forks can be outside it.
  const [file, args] = cgroup ? ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, bwrapPath, ...argv]] : [bwrapPath, argv]
  let released = false
  const release = async (): Promise<void> => {
    if (released) return
    released = true
    await cgroup?.release()
    binds.release()
  }
  return new Promise<ExecResult>((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: {}, // bwrap itself needs nothing from the host's env
      detached: true, // its own process group, killed as one
    })
    let spawnError: Error | undefined
    child.on('error', (err) => {
      spawnError = err
    })
    watchConfined(child, request, signal, (c, exitCode, sig) => {
      void release().then(() => {
        if (c.cancelled) return reject(new WorkspaceError('ECANCELED', 'the command was cancelled and killed'))
        // A deadline that hit while bwrap was still starting is still a timeout, not a broken sandbox.
        if (!c.started && !c.timedOut) {
          const why = whyNotStarted(c, exitCode, sig, spawnError)
          return reject(
            new WorkspaceError(
              'SANDBOX_UNAVAILABLE',
              `bubblewrap could not start the command (${why}); the command did not run. To fix: ${INSTALL_HINT}`,
            ),
          )
        }
        resolve(confinedResult(c, exitCode, sig, readOnlyNames(config, binds.placeholders)))
      })
    })
  })
}

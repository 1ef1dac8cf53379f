/**
 * The `createContainer` body: every hardening default in one place (notes/sandbox-security.md, C).
 * test/docker/hardening.test.ts attacks each of them.
 */
import type Docker from 'dockerode'
import { randomBytes } from 'node:crypto'
import { INSTANCE_LABEL, LABEL, SESSION_LABEL } from './engine.js'
import { ownerLabels } from './owner.js'
import type { WorkspaceMount } from './mount.js'
import type { ResolvedOptions } from './options.js'

export const NOBODY = '65534:65534'

/** The calling process's `uid:gid`, or undefined where the platform has none (Windows). */
function callerIds(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return undefined
  return { uid: process.getuid(), gid: process.getgid() }
}

/**
 * The program's `uid:gid`. An explicit choice is used as given. Otherwise the container runs as the
 * workspace's owner — root included, the common case in CI and in containers — but only when the caller
 * could act as that owner anyway (it is that owner, or it is root): the program never gets more than the
 * caller has. A caller that is neither gets its own ids (a shared folder it can write by its mode bits).
 * Without a workspace: nobody. Every capability is dropped and no-new-privileges set whatever the user, so
 * root in the container owns files and nothing more (no CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_SYS_ADMIN …).
 * A user namespace would map it to an unprivileged host uid, but Docker only offers that engine-wide
 * (`userns-remap`), not per container.
 */
export function containerUser(
  explicit: string | undefined,
  mount: WorkspaceMount | undefined,
  caller: { uid: number; gid: number } | undefined = callerIds(),
): string {
  if (explicit !== undefined) return explicit
  if (!mount) return NOBODY
  const { uid, gid } = mount.owner
  if (caller === undefined || caller.uid === 0 || caller.uid === uid) return `${uid}:${gid}`
  return `${caller.uid}:${caller.gid}`
}

/**
 * The runner's command line, as images/Dockerfile's ENTRYPOINT has it (test/docker/image.test.ts holds
 * them equal). `--experimental-vm-modules`: the program's own import() hook (built-in modules only).
 * `--experimental-permission` with everything allowed but the inspector.
 */
export const RUNNER_ARGS = [
  '--experimental-vm-modules',
  '--experimental-permission',
  '--allow-fs-read=*',
  '--allow-fs-write=*',
  '--allow-child-process',
  '--allow-worker',
  '--disable-warning=ExperimentalWarning',
  '--disable-warning=SecurityWarning',
  '/opt/codeact/runner.mjs',
] as const
/** The image's execute-only copy of node (a non-dumpable runner) and the readable one. */
export const RUNNER_NODE = '/opt/codeact/node'
const READABLE_NODE = '/usr/local/bin/node'

/**
 * A session's container is named for it (`codeact-session-<id>-<random>`, the id reduced to what Docker
 * allows in a name): a warm container taken for a session is renamed so, as Docker cannot relabel one.
 */
export function sessionContainerName(sessionId: string): string {
  const safe = sessionId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 48)
  return `codeact-session-${safe}-${randomBytes(4).toString('hex')}`
}

/** gVisor (`runsc`, whatever the engine calls it) reads a binary to run it: an execute-only one fails. */
export function isGvisor(runtime: string | undefined): boolean {
  return runtime !== undefined && /runsc|gvisor/i.test(runtime)
}

/**
 * gVisor's kernel (the Sentry) runs in the container's cgroup and needs host threads of its own for each
 * task of the program (tens per task on the ptrace platform, as it runs). A cgroup pids limit sized for the program
 * therefore ends the Sentry (Go's "failed to create new OS thread", exit 2) when a program forks up to it,
 * instead of failing the fork. Under gVisor the program's limit is RLIMIT_NPROC, which gVisor's own kernel
 * enforces for every task of the sandbox (root included, as no capability is kept), so the fork fails with
 * EAGAIN; the cgroup keeps a looser bound on the host threads, with room for the Sentry.
 */
export const GVISOR_HOST_PIDS_PER_TASK = 40
const GVISOR_HOST_PIDS_BASE = 256

function pidsLimits(pidsLimit: number, gvisor: boolean): { PidsLimit: number } {
  return { PidsLimit: gvisor ? pidsLimit * GVISOR_HOST_PIDS_PER_TASK + GVISOR_HOST_PIDS_BASE : pidsLimit }
}

/** RLIMIT_NPROC, soft = hard: without CAP_SYS_RESOURCE the program cannot raise it. */
function nproc(pidsLimit: number): { Name: string; Soft: number; Hard: number } {
  return { Name: 'nproc', Soft: pidsLimit, Hard: pidsLimit }
}

export function containerSpec(
  o: ResolvedOptions,
  memoryMb: number,
  user: string,
  mount: WorkspaceMount | undefined,
  instanceId: string,
  /** A session's own container carries the session's id (the reaper removes it with its owner, like any other). */
  sessionId?: string,
): Docker.ContainerCreateOptions {
  const bytes = Math.round(memoryMb * 1024 * 1024)
  return {
    ...(sessionId !== undefined ? { name: sessionContainerName(sessionId) } : {}),
    Image: o.image,
    // Under gVisor the readable node runs the runner (gVisor's /proc refuses another process's memory itself).
    ...(isGvisor(o.runtime) ? { Entrypoint: [READABLE_NODE, ...RUNNER_ARGS] } : {}),
    // Nothing of the host environment passes in.
    Env: [],
    Labels: {
      [LABEL]: '1',
      ...ownerLabels(),
      [INSTANCE_LABEL]: instanceId,
      ...(sessionId !== undefined ? { [SESSION_LABEL]: sessionId } : {}),
    },
    User: user,
    WorkingDir: mount ? mount.mountAt : '/tmp',
    // The protocol: stdin stays open while the host is attached; when the host goes away, stdin ends
    // and the runner exits (StdinOnce), so a crashed host leaves stopped containers for the reaper.
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    NetworkDisabled: !o.network,
    StopTimeout: 1,
    HostConfig: {
      NetworkMode: o.network ? 'bridge' : 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': `rw,noexec,nosuid,nodev,size=${o.tmpSizeMb}m,mode=1777` },
      CapDrop: ['ALL'],
      // The engine's default seccomp profile applies: nothing here says `seccomp=unconfined`.
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      ...pidsLimits(o.pidsLimit, isGvisor(o.runtime)),
      Memory: bytes,
      MemorySwap: bytes, // equal: no swap
      NanoCpus: Math.round(o.cpus * 1e9),
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, ...(isGvisor(o.runtime) ? [nproc(o.pidsLimit)] : [])],
      IpcMode: 'private',
      Init: true, // reaps the program's zombies, forwards signals
      LogConfig: { Type: 'none', Config: {} }, // output is read over attach, capped; nothing on the host's disk
      Binds: mount ? mount.binds : [],
      AutoRemove: false, // removed explicitly, so `inspect` still works after an OOM kill
      ...(o.runtime ? { Runtime: o.runtime } : {}),
    },
  }
}

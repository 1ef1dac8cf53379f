/**
 * The Docker backend's options and their defaults. Every hardening default is on unless an option turns
 * the one thing it names off (only `network` can be opened; nothing here weakens the rest).
 */
import type Docker from 'dockerode'

export interface DockerWorkspaceOptions {
  /** Host folder bind-mounted into every container. Must exist. */
  root: string
  /** `true`: the whole workspace is read-only. A list: these paths (relative to `root` or absolute inside it) are. */
  readOnly?: readonly string[] | boolean
  /** Where the workspace appears in the container; also the program's working folder. Default `/workspace`. */
  mountAt?: string
}

export interface DockerSandboxOptions {
  /** Default `codeact-runner:latest` (built by `make image`). */
  image?: string
  /** Started containers kept ready. Default 2; 0 disables the warm pool. */
  poolSize?: number
  /** A warm container idle this long is removed (the pool refills at the next run). Default 5 minutes. */
  idleTimeoutMs?: number
  /**
   * Container memory in MiB, swap off. Default: each run's `limits.memoryMb` (the pool warms up for the
   * last size asked, starting at 128).
   */
  memoryMb?: number
  /** CPUs (NanoCpus). Default 1. */
  cpus?: number
  /**
   * Processes and threads in one container (the runner's own included; Node uses about 12). Default 128.
   * A fork past it fails with EAGAIN. Under gVisor it is the sandbox kernel's RLIMIT_NPROC, and the host
   * cgroup allows 40 host threads a task plus 256 for gVisor's own kernel (spec.ts).
   */
  pidsLimit?: number
  /** Size of the noexec tmpfs at /tmp, MiB. Default 64. */
  tmpSizeMb?: number
  /** Give the container a network (bridge). Default false: `NetworkMode: none`. */
  network?: boolean
  workspace?: DockerWorkspaceOptions
  /**
   * The engine to run on (dockerode connection options). Default: the one `DOCKER_HOST` names (or the
   * local socket), the usual dockerode way. One engine: to spread runs over machines, run a replica of
   * codeact on each (deploy/), each with its node's engine.
   */
  engine?: Docker.DockerOptions
  /**
   * `uid:gid` of the program. Default: the workspace root's owner (root included) when this process is that
   * owner or root, else this process's own ids; without a workspace 65534:65534 (nobody). Whatever the user,
   * every capability is dropped and no-new-privileges is set, so root in the container can write the files
   * it owns and nothing more.
   */
  user?: string
  /**
   * How the program's own container mounts the workspace. `read-write` (default): the program changes files
   * itself (node:fs, child_process) as well as through the workspace tools. `read-only`: its own writes fail
   * with EROFS, and the workspace tools are served by a container of their own that mounts it read-write,
   * so every change is a tool call — and goes through the approvals (`createRuntime` picks this whenever
   * `approve` is set). Staged runs cannot be served so (refused, naming the alternative).
   */
  programWorkspace?: 'read-write' | 'read-only'
  /** OCI runtime, e.g. `runsc` for gVisor. Default: the engine's default (runc). */
  runtime?: string
  /**
   * How long a new container may take to say it is ready. Default 60 s: generous, because a loaded machine
   * can take that long and the wait is not part of any run's time limit (a start that times out is tried
   * once more before a run is told the sandbox is unavailable).
   */
  startTimeoutMs?: number
}

/** The options with their defaults filled in. */
export type ResolvedOptions = ReturnType<typeof resolveOptions>

/** `CODEACT_IMAGE` (the variable images/build.sh reads too) names another tag, e.g. a branch's own build. */
export const DEFAULT_IMAGE = process.env.CODEACT_IMAGE || 'codeact-runner:latest'
/** The memory the pool warms up for before any run asked (the runtime's default limit). */
export const DEFAULT_MEMORY_MB = 128

export function resolveOptions(o: DockerSandboxOptions) {
  return {
    image: o.image ?? DEFAULT_IMAGE,
    poolSize: Math.max(0, Math.floor(o.poolSize ?? 2)),
    idleTimeoutMs: o.idleTimeoutMs ?? 5 * 60_000,
    memoryMb: o.memoryMb,
    cpus: o.cpus ?? 1,
    pidsLimit: o.pidsLimit ?? 128,
    tmpSizeMb: o.tmpSizeMb ?? 64,
    network: o.network ?? false,
    runtime: o.runtime,
    startTimeoutMs: o.startTimeoutMs ?? 60_000,
    programWorkspace: o.programWorkspace ?? 'read-write',
  }
}

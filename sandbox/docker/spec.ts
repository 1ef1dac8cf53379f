/**
 * The `createContainer` body: every hardening default in one place (notes/sandbox-security.md, C).
 * test/docker/hardening.test.ts attacks each of them.
 */
import type Docker from 'dockerode'
import { INSTANCE_LABEL, LABEL, OWNER_LABEL, ownerId } from './engine.js'
import type { WorkspaceMount } from './mount.js'
import type { ResolvedOptions } from './options.js'

export const NOBODY = '65534:65534'

/**
 * The program's `uid:gid`: an explicit choice as given (`0:0` is root without capabilities, an opt-in),
 * else the workspace owner when that is not root, else nobody. Never root by default.
 */
export function containerUser(explicit: string | undefined, mount: WorkspaceMount | undefined): string {
  if (explicit !== undefined) return explicit
  if (mount && mount.owner.uid !== 0) return `${mount.owner.uid}:${mount.owner.gid}`
  return NOBODY
}

export function containerSpec(
  o: ResolvedOptions,
  memoryMb: number,
  user: string,
  mount: WorkspaceMount | undefined,
  instanceId: string,
): Docker.ContainerCreateOptions {
  const bytes = Math.round(memoryMb * 1024 * 1024)
  return {
    Image: o.image,
    // Nothing of the host environment passes in.
    Env: [],
    Labels: { [LABEL]: '1', [OWNER_LABEL]: ownerId(), [INSTANCE_LABEL]: instanceId },
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
      PidsLimit: o.pidsLimit,
      Memory: bytes,
      MemorySwap: bytes, // equal: no swap
      NanoCpus: Math.round(o.cpus * 1e9),
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }],
      IpcMode: 'private',
      Init: true, // reaps the program's zombies, forwards signals
      LogConfig: { Type: 'none', Config: {} }, // output is read over attach, capped; nothing on the host's disk
      Binds: mount ? mount.binds : [],
      AutoRemove: false, // removed explicitly, so `inspect` still works after an OOM kill
      ...(o.runtime ? { Runtime: o.runtime } : {}),
    },
  }
}

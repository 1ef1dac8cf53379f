/**
 * Staged runs on Docker (`--dry-run`, `--atomic`, `--review`): the run gets a container of its own whose
 * workspace is a kernel overlay that dockerd (root) mounts as a `local` volume — lowerdir: the real
 * workspace (never written), upperdir/workdir: the run's stage folders, which the host owns. The program's
 * file tools, its own node:fs and its `bash` all work on that one view (reads see its own writes). The
 * read-only parts are bound read-only on top, from the real tree. `userxattr` keeps the overlay's marks
 * (opaque folders) in `user.` attributes, so the host can read the upper layer back with an unprivileged
 * overlay of its own (sandbox/workspace/staging/overlay-upper.ts). Once the run ends the container and its
 * volume are removed — and waited for: nothing is read or applied while the overlay is still mounted.
 *
 * gVisor cannot serve an overlay-mounted folder (every stat in it fails with EINVAL, runsc 2022-12), so
 * under it the stage's upper folder is instead a full copy of the tree (modes, times and symlinks kept,
 * owned like the real one), bound read-write; the host compares it with the real tree afterwards. Slower
 * to set up for a big tree, same result.
 */
import type Docker from 'dockerode'
import { chownSync, chmodSync, statSync } from 'node:fs'
import { cp, lchown, lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import { LABEL } from './engine.js'
import type { WorkspaceMount } from './mount.js'
import { isGvisor } from './spec.js'

export interface DockerStage {
  upper: string
  work: string
}

/** How a runtime is served a stage: an overlay of the real tree, or a copy of it (gVisor). */
export function stageKind(runtime: string | undefined): 'overlay' | 'copy' {
  return isGvisor(runtime) ? 'copy' : 'overlay'
}

/** Why this engine set-up cannot stage a run, or undefined. */
export function stagingProblem(mount: WorkspaceMount, stage: DockerStage): string | undefined {
  if (/[:,\n]/.test(mount.root + stage.upper + stage.work))
    return 'the workspace or stage path holds ":" or ",", which an overlay mount cannot take'
  return undefined
}

/**
 * Makes the upper folder the overlay's root as the program sees it: the overlay's root takes the upper
 * folder's owner and mode, so it gets the real root's (the container runs as the workspace's owner).
 */
export function prepareUpper(mount: WorkspaceMount, stage: DockerStage): string | undefined {
  try {
    const st = statSync(mount.root)
    chownSync(stage.upper, st.uid, st.gid)
    chmodSync(stage.upper, st.mode & 0o7777)
    return undefined
  } catch (err) {
    return `the stage folder could not be given the workspace's owner (${(err as Error).message})`
  }
}

function inContainer(mount: WorkspaceMount, hostPath: string): string {
  return path.posix.join(mount.mountAt, path.relative(mount.root, hostPath).split(path.sep).join('/'))
}

/** Copies the real tree into the (empty) upper folder: files, folders and symlinks, owned as they are. */
export async function prepareCopy(mount: WorkspaceMount, stage: DockerStage): Promise<void> {
  await cp(mount.root, stage.upper, {
    recursive: true,
    preserveTimestamps: true,
    verbatimSymlinks: true,
    filter: async (src) => {
      const st = await lstat(src)
      return st.isFile() || st.isDirectory() || st.isSymbolicLink()
    },
  })
  if (process.getuid?.() !== 0) return
  const own = async (real: string, copy: string): Promise<void> => {
    for (const d of await readdir(copy, { withFileTypes: true })) {
      const st = await lstat(path.join(real, d.name)).catch(() => undefined)
      if (st) await lchown(path.join(copy, d.name), st.uid, st.gid)
      if (d.isDirectory()) await own(path.join(real, d.name), path.join(copy, d.name))
    }
  }
  await own(mount.root, stage.upper)
}

/** The run's container spec with its workspace staged: the overlay volume (or the copy), the read-only parts on top. */
export function stagedSpec(
  spec: Docker.ContainerCreateOptions,
  mount: WorkspaceMount,
  stage: DockerStage,
  kind: 'overlay' | 'copy',
): Docker.ContainerCreateOptions {
  // A read-only workspace cannot be written at all: the plain spec is already staged.
  if (mount.allReadOnly) return spec
  const readOnly = mount.readOnly.map((ro) => `${ro}:${inContainer(mount, ro)}:ro`)
  if (kind === 'copy') return { ...spec, HostConfig: { ...spec.HostConfig, Binds: [`${stage.upper}:${mount.mountAt}:rw`, ...readOnly] } }
  const o = `lowerdir=${mount.root},upperdir=${stage.upper},workdir=${stage.work},userxattr`
  return {
    ...spec,
    HostConfig: {
      ...spec.HostConfig,
      // Only the read-only binds: a read-write bind of the real tree would bypass the stage.
      Binds: readOnly,
      Mounts: [
        {
          Type: 'volume',
          Source: '', // anonymous: removed with the container (`v`)
          Target: mount.mountAt,
          VolumeOptions: {
            NoCopy: true,
            Labels: { [LABEL]: '1' },
            DriverConfig: { Name: 'local', Options: { type: 'overlay', device: 'overlay', o } },
          },
        },
      ],
    },
  }
}

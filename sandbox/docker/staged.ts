/**
 * Staged runs on Docker (`--dry-run`, `--atomic`, `--review`): the run gets a container of its own whose
 * workspace is a kernel overlay that dockerd (root) mounts as a `local` volume — lowerdir: the real
 * workspace (never written), upperdir/workdir: the run's stage folders, which the host owns. The program's
 * file tools, its own node:fs and its `bash` all work on that one view (reads see its own writes). The
 * read-only parts are bound read-only on top, from the real tree. `userxattr` keeps the overlay's marks
 * (opaque folders) in `user.` attributes, so the host can read the upper layer back with an unprivileged
 * overlay of its own (sandbox/workspace/staging/overlay-upper.ts). Once the run ends the container and its
 * volume are removed — and waited for: nothing is read or applied while the overlay is still mounted.
 */
import type Docker from 'dockerode'
import { chownSync, chmodSync, statSync } from 'node:fs'
import path from 'node:path'
import { LABEL } from './engine.js'
import type { WorkspaceMount } from './mount.js'
import { isGvisor } from './spec.js'

export interface DockerStage {
  upper: string
  work: string
}

/** Why this engine set-up cannot stage a run, or undefined. */
export function stagingProblem(mount: WorkspaceMount, stage: DockerStage, runtime: string | undefined): string | undefined {
  if (isGvisor(runtime))
    return (
      `gVisor (runtime ${runtime}) cannot serve an overlay-mounted workspace (every stat in it fails with EINVAL), ` +
      'so a staged run cannot be had there; use runc or the isolate sandbox for --dry-run/--atomic/--review'
    )
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

/** The run's container spec with its workspace staged: the overlay volume, and the read-only parts on top. */
export function stagedSpec(spec: Docker.ContainerCreateOptions, mount: WorkspaceMount, stage: DockerStage): Docker.ContainerCreateOptions {
  // A read-only workspace cannot be written at all: the plain spec is already staged.
  if (mount.allReadOnly) return spec
  const o = `lowerdir=${mount.root},upperdir=${stage.upper},workdir=${stage.work},userxattr`
  return {
    ...spec,
    HostConfig: {
      ...spec.HostConfig,
      // Only the read-only binds: a read-write bind of the real tree would bypass the stage.
      Binds: mount.readOnly.map((ro) => `${ro}:${inContainer(mount, ro)}:ro`),
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

/** Kill and remove the container with its volume (unmounting the overlay); resolves whether both are gone. */
export async function removeStaged(container: Docker.Container): Promise<boolean> {
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      await container.remove({ force: true, v: true })
      return true
    } catch (e) {
      if ((e as { statusCode?: unknown }).statusCode === 404) return true
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)))
    }
  }
  return false
}

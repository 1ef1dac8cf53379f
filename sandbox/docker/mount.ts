/**
 * The workspace bind mounts: the root read-write (or read-only), and each read-only part mounted again,
 * read-only, on top. Paths are resolved to real paths first: Docker follows a symlink on the host, so a
 * read-only entry that is a link to /etc would otherwise mount the host's /etc.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { DockerWorkspaceOptions } from './options.js'

export interface WorkspaceMount {
  /** Real path of the root on the host. */
  root: string
  /** Where it is mounted in the container. */
  mountAt: string
  /** `HostConfig.Binds` entries. */
  binds: string[]
  /** Real host paths of the read-only parts (the root itself when all of it is). */
  readOnly: string[]
  /** Owner of the root on the host, the default user of the container. */
  owner: { uid: number; gid: number }
  /** Permission bits of the root. */
  mode: number
  /** The whole workspace is read-only. */
  allReadOnly: boolean
}

export type MountResult = { ok: true; mount: WorkspaceMount } | { ok: false; message: string }

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root + path.sep)
}

export function workspaceMount(ws: DockerWorkspaceOptions): MountResult {
  let root: string
  try {
    root = fs.realpathSync(ws.root)
    if (!fs.statSync(root).isDirectory()) return { ok: false, message: `the workspace ${ws.root} is not a folder` }
  } catch {
    return { ok: false, message: `the workspace ${ws.root} does not exist` }
  }
  const mountAt = path.posix.resolve('/', ws.mountAt ?? '/workspace')
  // Not over the image's own folders (the runner, Node, the tmpfs).
  if (
    mountAt === '/' ||
    ['/tmp', '/usr', '/opt', '/etc', '/proc', '/dev', '/sys', '/bin', '/lib', '/lib64'].some((p) => inside(p, mountAt))
  ) {
    return { ok: false, message: `the workspace cannot be mounted at ${mountAt}` }
  }
  const st = fs.statSync(root)
  const owner = { uid: st.uid, gid: st.gid }
  const mode = st.mode & 0o777
  const whole = (): MountResult => ({
    ok: true,
    mount: { root, mountAt, binds: [`${root}:${mountAt}:ro`], readOnly: [root], owner, mode, allReadOnly: true },
  })
  if (ws.readOnly === true) return whole()

  const binds = [`${root}:${mountAt}:rw`]
  const readOnly: string[] = []
  for (const entry of ws.readOnly === false || ws.readOnly === undefined ? [] : ws.readOnly) {
    const wanted = path.resolve(root, entry)
    if (!inside(root, wanted)) return { ok: false, message: `the read-only path ${entry} is outside the workspace` }
    // A missing read-only folder is created (empty, owned by this user), so the program cannot create it writable.
    if (!fs.existsSync(wanted)) fs.mkdirSync(wanted, { recursive: true })
    const real = fs.realpathSync(wanted)
    if (!inside(root, real)) return { ok: false, message: `the read-only path ${entry} resolves outside the workspace` }
    if (real === root) return whole()
    readOnly.push(real)
  }
  const inContainer = (p: string): string => path.posix.join(mountAt, path.relative(root, p).split(path.sep).join('/'))
  // Every folder between the root and a read-only part is a mount point of its own (read-write): the kernel
  // refuses to rename or remove a mount point (EBUSY), so `mv pkg x && mkdir -p pkg/vendor` cannot displace
  // a read-only `pkg/vendor` (a bind moves with its parent). Docker mounts parents before children.
  const parents = new Set<string>()
  for (const ro of readOnly) {
    for (let p = path.dirname(ro); p !== root && inside(root, p); p = path.dirname(p)) {
      if (!readOnly.some((r) => inside(r, p))) parents.add(p)
    }
  }
  for (const p of [...parents].sort()) binds.push(`${p}:${inContainer(p)}:rw`)
  for (const ro of readOnly) binds.push(`${ro}:${inContainer(ro)}:ro`)
  return { ok: true, mount: { root, mountAt, binds, readOnly, owner, mode, allReadOnly: false } }
}

/**
 * Why the container's `uid:gid` could not use the workspace root (by its permission bits), or undefined.
 * Caught at set-up, so a root-owned 0700 folder is one clear message instead of EACCES on every access.
 */
export function accessProblem(mount: WorkspaceMount, user: string): string | undefined {
  const m = /^(\d+)(?::(\d+))?$/.exec(user)
  if (!m) return undefined // a user name: the engine resolves it, nothing to check here
  const uid = Number(m[1])
  const gid = m[2] === undefined ? undefined : Number(m[2])
  if (uid === 0) return undefined
  const bits = uid === mount.owner.uid ? mount.mode >> 6 : gid === mount.owner.gid ? (mount.mode >> 3) & 7 : mount.mode & 7
  const need = mount.allReadOnly ? 0o5 : 0o7
  if ((bits & need) === need) return undefined
  return (
    `the workspace ${mount.root} (owner ${mount.owner.uid}:${mount.owner.gid}, mode ${mount.mode.toString(8)}) is not ` +
    `${mount.allReadOnly ? 'readable' : 'writable'} by the container's user ${user}: chown it to that user, ` +
    `or pass the Docker option \`user\` (\`--docker-user UID:GID\` on the command line)`
  )
}

/** Host path -> container path; undefined when it is not inside the workspace. */
export function toContainerPath(mount: WorkspaceMount, hostPath: string): string | undefined {
  const p = path.resolve(hostPath)
  if (!inside(mount.root, p)) return undefined
  const rel = path.relative(mount.root, p).split(path.sep).join('/')
  return rel ? path.posix.join(mount.mountAt, rel) : mount.mountAt
}

/**
 * The workspace as a program sees it when its own writes must go through the tools (`programWorkspace:
 * 'read-only'`): the whole tree bound read-only. The tools keep the writable mount in a container of their own.
 */
export function readOnlyView(mount: WorkspaceMount): WorkspaceMount {
  if (mount.allReadOnly) return mount
  return { ...mount, binds: [`${mount.root}:${mount.mountAt}:ro`], readOnly: [mount.root], allReadOnly: true }
}

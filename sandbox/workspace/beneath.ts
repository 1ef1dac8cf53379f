/**
 * File operations that resolve beneath a root by descriptor, so no swap between a check and the use can
 * reach outside it (DESIGN invariant 7).
 *
 * Node has no `openat`, but Linux resolves `/proc/self/fd/<fd>/<name>` relative to the folder the
 * descriptor holds open. So every path is walked one component at a time: each folder is opened with
 * `O_NOFOLLOW | O_DIRECTORY` through its parent's descriptor, and the last step (`open`, `unlink`,
 * `rmdir`, `mkdir`, `rename`, `lstat`, `readdir`) names one entry of the last opened folder. A component
 * that is — or has just become — a symlink is refused (EACCES), never followed. Names never contain `/`,
 * `.` or `..`.
 *
 * The folder walk and the metadata calls are synchronous on purpose: a few syscalls that cannot block
 * (O_DIRECTORY fails on a FIFO before it opens; files are opened O_NONBLOCK), and a thread-pool round trip
 * each would cost more than the syscalls themselves (a 1,000-file batch ran 5× slower that way). Content
 * past SMALL_BYTES is read and written asynchronously.
 *
 * The folders a walk opened stay open for the next operations beneath the same root (a batch touches the
 * same few folders a thousand times): a kept descriptor is used again only once the kernel confirms the
 * folder is still exactly where the walk found it — `/proc/self/fd/<fd>` names a folder by its real place
 * (through its actual parents, so through no symlink); a folder moved, renamed, removed or replaced since
 * reads differently and is walked afresh. The guarantee is the walk's own: the folder was reached without
 * a symlink and is beneath the root at the moment of the check.
 *
 * Paths are `/`-separated and relative to the root (`.` or `''` for the root itself); messages name them
 * that way, never by the host's absolute path. Where `/proc/self/fd` is missing (not Linux) the same walk
 * runs on joined names with the same checks, without the kernel's guarantee against a concurrent swap.
 */
import { close, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, type Dirent, type Stats } from 'node:fs'
import { join } from 'node:path'
import { errnoOf, WorkspaceError, type EntryType } from './ops.js'

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY } = constants
export const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
const HAS_PROC_FD = existsSync('/proc/self/fd')
/** Content up to this size is read and written with synchronous calls (see the top). */
export const SMALL_BYTES = 256 * 1024

/** An open folder beneath the root: its descriptor and its workspace-relative path. */
export interface DirRef {
  fd: number
  /** Workspace-relative, `/`-separated; '.' for the root. */
  rel: string
  /** Host path, used only where `/proc/self/fd` is missing. */
  host: string
}

/** The path that names `name` inside `dir` by descriptor. */
export function entryPath(dir: DirRef, name: string): string {
  return HAS_PROC_FD ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.host, name)
}

/** The path that names the folder `dir` itself by descriptor. */
export function dirPath(dir: DirRef): string {
  return HAS_PROC_FD ? `/proc/self/fd/${dir.fd}` : dir.host
}

function relJoin(rel: string, name: string): string {
  return rel === '.' ? name : `${rel}/${name}`
}

/** A Node fs error as the WorkspaceError a tool reports, naming the workspace-relative path. */
export function beneathError(err: unknown, rel: string): WorkspaceError {
  if (err instanceof WorkspaceError) return err
  const code = errnoOf(err)
  switch (code) {
    case 'ENOENT':
      return new WorkspaceError('ENOENT', `no such file or folder: ${rel}`)
    case 'EEXIST':
    case 'EISDIR':
    case 'ENOTDIR':
    case 'ENOTEMPTY':
    case 'EROFS':
      return new WorkspaceError(code, `${code}: ${rel}`)
    case 'EBUSY':
      return new WorkspaceError('EROFS', `${rel} is a mount point (read-only); refused`)
    case 'ENOSPC':
    case 'EDQUOT':
      return new WorkspaceError(code, `${code}: no space left on the device writing ${rel}`)
    case 'ELOOP':
      return new WorkspaceError('EACCES', `${rel} is a symlink at the point of use; refused`)
    case 'EACCES':
    case 'EPERM':
      return new WorkspaceError(code, `${code}: permission denied for ${rel}`)
    default:
      return new WorkspaceError('EIO', `${code ?? 'error'} on ${rel}`)
  }
}

/** The components of a workspace-relative path; EACCES for anything that could climb or is not a name. */
export function splitRel(rel: string): string[] {
  if (rel.includes('\0')) throw new WorkspaceError('EACCES', 'path contains a NUL byte')
  if (rel.startsWith('/')) throw new WorkspaceError('EACCES', `${rel} is not workspace-relative`)
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.includes('..')) throw new WorkspaceError('EACCES', `${rel} climbs out with '..'; refused`)
  return parts
}

/** Opens the root itself (no symlink allowed at its last component). */
export function openRoot(root: string): DirRef {
  try {
    return { fd: openSync(root, DIR_FLAGS), rel: '.', host: root }
  } catch (err) {
    throw beneathError(err, '.')
  }
}

/**
 * Opens `name` inside `parent` as a folder, never through a symlink. `create`: mkdir it first when missing.
 * ENOTDIR when it is a file, EACCES when it is a symlink (whatever it points at).
 */
export function openChildDir(parent: DirRef, name: string, create = false): DirRef {
  const rel = relJoin(parent.rel, name)
  const path = entryPath(parent, name)
  if (create) {
    try {
      mkdirSync(path, 0o777)
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST') throw beneathError(err, rel)
    }
  }
  try {
    return { fd: openSync(path, DIR_FLAGS), rel, host: join(parent.host, name) }
  } catch (err) {
    const code = errnoOf(err)
    // O_DIRECTORY | O_NOFOLLOW on a symlink says ENOTDIR (or ELOOP): tell the two apart.
    if (code === 'ENOTDIR' || code === 'ELOOP') {
      const st = lstatOrUndefined(path)
      if (st?.isSymbolicLink() === true)
        throw new WorkspaceError('EACCES', `${rel} is a symlink at the point of use; refused (it is not followed)`)
      // Gone or a folder again by now: it was swapped while being opened.
      if (st === undefined || st.isDirectory()) throw new WorkspaceError('EACCES', `${rel} changed while it was being opened; refused`)
      throw new WorkspaceError('ENOTDIR', `${rel} is not a folder`)
    }
    throw beneathError(err, rel)
  }
}

export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

export function closeDir(dir: DirRef): void {
  try {
    closeSync(dir.fd)
  } catch {
    // already closed
  }
}

/** Opens the folder at `parts` beneath `root`, each component by descriptor. */
export function openDirBeneath(root: string, parts: readonly string[], create = false): DirRef {
  let dir = openRoot(root)
  for (const name of parts) {
    try {
      const next = openChildDir(dir, name, create)
      closeDir(dir)
      dir = next
    } catch (err) {
      closeDir(dir)
      throw err
    }
  }
  return dir
}

interface Kept {
  dir: DirRef
  /** Real absolute path the walk found the folder at. */
  at: string
  uses: number
  dropped: boolean
}

/** Kept folders, by root and workspace-relative path; least recently used first. */
const kept = new Map<string, Kept>()
const MAX_KEPT = 32

function release(entry: Kept): void {
  entry.uses--
  if (entry.dropped && entry.uses === 0) closeDir(entry.dir)
}

/**
 * `later`: closed through the thread pool. A kept folder is dropped mostly because it was removed (a tree
 * deleted and made again), and the last close of a removed folder is where the file system frees it —
 * work the call that noticed need not wait for. Nothing uses a dropped descriptor again.
 */
function drop(key: string, entry: Kept, later = false): void {
  if (kept.get(key) === entry) kept.delete(key)
  entry.dropped = true
  if (entry.uses !== 0) return
  if (later) close(entry.dir.fd, () => undefined)
  else closeDir(entry.dir)
}

/**
 * Close the folders kept beneath `root` (a folder in use closes when its operation ends). A runtime's
 * `close()` calls it, so nothing it opened holds the workspace afterwards (an unmount, a removal).
 */
export function forgetKeptFolders(root: string): void {
  for (const [key, entry] of kept) if (key.startsWith(`${root}\0`)) drop(key, entry)
}

/** A kept folder at `parts` beneath `root`, still exactly there, or a fresh walk (then kept). */
function acquireDir(root: string, parts: readonly string[], create: boolean): Kept {
  const key = `${root}\0${parts.join('/')}`
  const at = parts.length === 0 ? root : join(root, ...parts)
  const found = kept.get(key)
  if (found) {
    let now: string | undefined
    try {
      now = readlinkSync(`/proc/self/fd/${found.dir.fd}`)
    } catch {
      now = undefined
    }
    if (now === at) {
      kept.delete(key)
      kept.set(key, found)
      found.uses++
      return found
    }
    drop(key, found, true)
  }
  const entry: Kept = { dir: openDirBeneath(root, parts, create), at, uses: 1, dropped: false }
  if (!HAS_PROC_FD) {
    entry.dropped = true // nothing can confirm it later: closed after this use
    return entry
  }
  kept.set(key, entry)
  for (const [k, e] of kept) {
    if (kept.size <= MAX_KEPT) break
    drop(k, e, true)
  }
  return entry
}

/** Runs `fn` with the parent folder of `rel` open and its last component; the root itself has none. */
export async function withParent<T>(
  root: string,
  rel: string,
  create: boolean,
  fn: (parent: DirRef, name: string, rel: string) => Promise<T>,
): Promise<T> {
  const parts = splitRel(rel)
  const name = parts.pop()
  if (name === undefined) throw new WorkspaceError('EPERM', 'the workspace root itself cannot be the target of this operation')
  const parent = acquireDir(root, parts, create)
  try {
    return await fn(parent.dir, name, relJoin(parent.dir.rel, name))
  } finally {
    release(parent)
  }
}

/** Runs `fn` with the folder `rel` itself open (the root for '.'). */
export async function withDir<T>(root: string, rel: string, fn: (dir: DirRef) => Promise<T>): Promise<T> {
  const dir = acquireDir(root, splitRel(rel), false)
  try {
    return await fn(dir.dir)
  } finally {
    release(dir)
  }
}

export function entryTypeOf(s: Stats | Dirent): EntryType {
  if (s.isSymbolicLink()) return 'symlink'
  if (s.isFile()) return 'file'
  if (s.isDirectory()) return 'dir'
  return 'other'
}

export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

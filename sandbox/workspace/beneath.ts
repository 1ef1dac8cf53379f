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
 * The folder walk uses the synchronous calls on purpose: they are a few metadata syscalls that cannot
 * block (O_DIRECTORY fails on a FIFO before it opens), and a thread-pool round trip per component would
 * cost more than the syscalls themselves. Content is read and written asynchronously.
 *
 * Paths are `/`-separated and relative to the root (`.` or `''` for the root itself); messages name them
 * that way, never by the host's absolute path. Where `/proc/self/fd` is missing (not Linux) the same walk
 * runs on joined names with the same checks, without the kernel's guarantee against a concurrent swap.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, type Dirent, type Stats } from 'node:fs'
import { open, lstat, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { WorkspaceError, type DirEntry, type EntryType, type FileInfo, type WalkEntry, type WalkResult } from './ops.js'

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
const HAS_PROC_FD = existsSync('/proc/self/fd')
const utf8 = new TextDecoder('utf-8', { fatal: true })

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

function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
}

/** A Node fs error as the WorkspaceError a tool reports, naming the workspace-relative path. */
export function beneathError(err: unknown, rel: string): WorkspaceError {
  if (err instanceof WorkspaceError) return err
  const code = errno(err)
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
      if (errno(err) !== 'EEXIST') throw beneathError(err, rel)
    }
  }
  try {
    return { fd: openSync(path, DIR_FLAGS), rel, host: join(parent.host, name) }
  } catch (err) {
    const code = errno(err)
    // O_DIRECTORY | O_NOFOLLOW on a symlink says ENOTDIR (or ELOOP): tell the two apart.
    if (code === 'ENOTDIR' || code === 'ELOOP') {
      const st = lstatOrUndefined(path)
      if (st?.isSymbolicLink() === true) throw new WorkspaceError('EACCES', `${rel} is a symlink at the point of use; refused (it is not followed)`)
      throw new WorkspaceError('ENOTDIR', `${rel} is not a folder`)
    }
    throw beneathError(err, rel)
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
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

/** Runs `fn` with the parent folder of `rel` open and its last component; the root itself has none. */
export async function withParent<T>(root: string, rel: string, create: boolean, fn: (parent: DirRef, name: string, rel: string) => Promise<T>): Promise<T> {
  const parts = splitRel(rel)
  const name = parts.pop()
  if (name === undefined) throw new WorkspaceError('EPERM', 'the workspace root itself cannot be the target of this operation')
  const parent = openDirBeneath(root, parts, create)
  try {
    return await fn(parent, name, relJoin(parent.rel, name))
  } finally {
    closeDir(parent)
  }
}

/** Runs `fn` with the folder `rel` itself open (the root for '.'). */
export async function withDir<T>(root: string, rel: string, fn: (dir: DirRef) => Promise<T>): Promise<T> {
  const dir = openDirBeneath(root, splitRel(rel))
  try {
    return await fn(dir)
  } finally {
    closeDir(dir)
  }
}

export function entryTypeOf(s: Stats | Dirent): EntryType {
  if (s.isSymbolicLink()) return 'symlink'
  if (s.isFile()) return 'file'
  if (s.isDirectory()) return 'dir'
  return 'other'
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/** UTF-8 text of a regular file. EFBIG over `maxBytes`, EILSEQ for binary content, EISDIR for a folder. */
export function readTextBeneath(root: string, rel: string, maxBytes: number): Promise<string> {
  return withParent(root, rel, false, async (parent, name, at) => {
    let fh: FileHandle
    try {
      // O_NONBLOCK: a FIFO planted in the workspace must not hang the host.
      fh = await open(entryPath(parent, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch (err) {
      throw beneathError(err, at)
    }
    try {
      const st = await fh.stat()
      if (st.isDirectory()) throw new WorkspaceError('EISDIR', `${at} is a folder; use list_dir`)
      if (!st.isFile()) throw new WorkspaceError('EIO', `${at} is not a regular file`)
      if (st.size > maxBytes) {
        throw new WorkspaceError('EFBIG', `${at} is ${st.size} bytes, over the ${maxBytes}-byte read limit; read it with bash (head, sed -n) instead`)
      }
      const bytes = await fh.readFile()
      const nul = bytes.indexOf(0)
      if (nul !== -1) throw new WorkspaceError('EILSEQ', `${at} is a binary file (NUL byte at offset ${nul}); not returned as text`)
      try {
        return utf8.decode(bytes)
      } catch {
        throw new WorkspaceError('EILSEQ', `${at} is not valid UTF-8 text; not returned as text`)
      }
    } catch (err) {
      throw beneathError(err, at)
    } finally {
      await fh.close()
    }
  })
}

export interface WriteOptions {
  /** Create missing parent folders (default true). */
  parents?: boolean
  /** fsync the file and its folder before returning (crash-safe; slower). */
  durable?: boolean
}

/**
 * Creates or replaces a file atomically: a temp file created `O_EXCL | O_NOFOLLOW` in the same folder
 * descriptor, then renamed over the name. Readers see the old or the new content, never half of it; a hard
 * link shared with another file is never written through; an existing file keeps its mode (and, run as
 * root, its owner).
 */
export function writeBeneath(root: string, rel: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  return withParent(root, rel, options.parents ?? true, async (parent, name, at) => {
    const target = entryPath(parent, name)
    const old = await lstat(target).catch((err: unknown) => {
      if (errno(err) === 'ENOENT') return undefined
      throw beneathError(err, at)
    })
    if (old?.isDirectory() === true) throw new WorkspaceError('EISDIR', `${at} is a folder`)
    if (old?.isSymbolicLink() === true) throw new WorkspaceError('EACCES', `${at} is a symlink at the point of use; refused`)
    const tempName = `.${name.slice(0, 200)}.codeact-${randomBytes(6).toString('hex')}`
    const temp = entryPath(parent, tempName)
    let fh: FileHandle
    try {
      fh = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, old ? old.mode & 0o7777 : 0o666)
    } catch (err) {
      throw beneathError(err, at)
    }
    try {
      if (old) {
        // open() applied the umask; the replacement keeps exactly the old bits (and owner, when we may).
        await fh.chmod(old.mode & 0o7777)
        if (process.getuid?.() === 0 && (old.uid !== 0 || old.gid !== 0)) await fh.chown(old.uid, old.gid).catch(() => undefined)
      }
      await fh.writeFile(content)
      if (options.durable === true) await fh.sync()
      await fh.close()
      await rename(temp, target)
      if (options.durable === true) await fsyncDir(parent)
    } catch (err) {
      await fh.close().catch(() => undefined)
      await unlink(temp).catch(() => undefined)
      throw beneathError(err, at)
    }
  })
}

async function fsyncDir(dir: DirRef): Promise<void> {
  const fh = await open(dirPath(dir), O_RDONLY | O_DIRECTORY)
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Creates a folder and its parents; fine if it is a folder already, EEXIST if it is something else. */
export async function mkdirBeneath(root: string, rel: string): Promise<void> {
  mkdirBeneathSync(root, rel)
}

/** `mkdirBeneath`, synchronously (a few metadata syscalls), for set-up code that must finish before it goes on. */
export function mkdirBeneathSync(root: string, rel: string): void {
  const parts = splitRel(rel)
  if (parts.length === 0) return
  try {
    closeDir(openDirBeneath(root, parts, true))
  } catch (err) {
    if (err instanceof WorkspaceError && err.code === 'ENOTDIR') {
      throw new WorkspaceError('EEXIST', `${err.message.replace(/ is not a folder$/, '')} exists and is not a folder`)
    }
    throw err
  }
}

/** Renames `from` to `to` (both beneath the root; missing parents of `to` are created). Replaces a file at `to`. */
export function renameBeneath(root: string, from: string, to: string): Promise<void> {
  return withParent(root, from, false, (src, srcName, fromRel) =>
    withParent(root, to, true, async (dst, dstName) => {
      try {
        await rename(entryPath(src, srcName), entryPath(dst, dstName))
      } catch (err) {
        throw beneathError(err, fromRel)
      }
    }),
  )
}

/**
 * Removes a file, a symlink (never its target) or a folder (ENOTEMPTY unless `recursive`). A recursive
 * remove opens each folder by descriptor before emptying it: a folder swapped for a symlink mid-way is
 * unlinked as the symlink it now is, never descended into.
 */
export function removeBeneath(root: string, rel: string, recursive: boolean): Promise<void> {
  return withParent(root, rel, false, async (parent, name, at) => {
    try {
      await removeEntry(parent, name, recursive)
    } catch (err) {
      throw beneathError(err, at)
    }
  })
}

async function removeEntry(parent: DirRef, name: string, recursive: boolean): Promise<void> {
  const path = entryPath(parent, name)
  const st = await lstat(path)
  if (!st.isDirectory()) return unlink(path)
  if (recursive) {
    let dir: DirRef
    try {
      dir = openChildDir(parent, name)
    } catch (err) {
      // It stopped being a folder between the lstat and the open: remove whatever it is now.
      if (err instanceof WorkspaceError && (err.code === 'EACCES' || err.code === 'ENOTDIR')) return unlink(path)
      throw err
    }
    try {
      for (const child of await readdir(dirPath(dir))) await removeEntry(dir, child, true)
    } finally {
      closeDir(dir)
    }
  }
  await rmdir(path)
}

/** A folder's entries, sorted by name; symlinks are reported as such, never followed. */
export function readdirBeneath(root: string, rel: string): Promise<DirEntry[]> {
  return withDir(root, rel, async (dir) => {
    try {
      const out: DirEntry[] = []
      for (const d of await readdir(dirPath(dir), { withFileTypes: true })) {
        const st = await lstat(entryPath(dir, d.name)).catch(() => undefined)
        out.push({ name: d.name, type: entryTypeOf(st ?? d), size: st && !st.isDirectory() ? st.size : 0 })
      }
      return out.sort(byName)
    } catch (err) {
      throw beneathError(err, dir.rel)
    }
  })
}

/** Does not follow a final symlink. */
export async function statBeneath(root: string, rel: string): Promise<FileInfo> {
  const info = (st: Stats): FileInfo => ({ type: entryTypeOf(st), size: st.isDirectory() ? 0 : st.size, mtimeMs: Math.round(st.mtimeMs), mode: st.mode & 0o7777 })
  if (splitRel(rel).length === 0) return withDir(root, '.', async (dir) => info(await lstat(dirPath(dir))))
  return withParent(root, rel, false, async (parent, name, at) => {
    try {
      return info(await lstat(entryPath(parent, name)))
    } catch (err) {
      throw beneathError(err, at)
    }
  })
}

/** Every entry under `rel`, depth first over sorted names; each folder opened by descriptor, never a symlink. */
export function walkBeneath(root: string, rel: string, limit: number): Promise<WalkResult> {
  return withDir(root, rel, async (top) => {
    const entries: WalkEntry[] = []
    const visit = async (dir: DirRef, prefix: string): Promise<boolean> => {
      const dirents = await readdir(dirPath(dir), { withFileTypes: true }).catch((): Dirent[] => [])
      dirents.sort(byName)
      for (const d of dirents) {
        if (entries.length >= limit) return false
        const path = prefix === '' ? d.name : `${prefix}/${d.name}`
        const type = entryTypeOf(d)
        entries.push({ path, type })
        if (type !== 'dir') continue
        let child: DirRef
        try {
          child = openChildDir(dir, d.name)
        } catch {
          continue // gone, or swapped for a symlink since the listing: not descended into
        }
        try {
          if (!(await visit(child, path))) return false
        } finally {
          closeDir(child)
        }
      }
      return true
    }
    const complete = await visit(top, '')
    return { entries, truncated: !complete }
  })
}

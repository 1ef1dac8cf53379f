/**
 * The file operations on top of beneath.ts's by-descriptor walk: read, mkdir, rename, remove, readdir, stat
 * and walk (the write is beneath-write.ts). Each names its last component through the descriptor of the
 * folder that holds it.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, read, readSync, type Dirent, type Stats } from 'node:fs'
import { lstat, readdir, rename, rmdir, unlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { tooBig, WorkspaceError, type DirEntry, type FileInfo, type WalkEntry, type WalkResult } from './ops.js'
import {
  beneathError,
  byName,
  closeDir,
  dirPath,
  entryPath,
  entryTypeOf,
  openChildDir,
  openDirBeneath,
  SMALL_BYTES,
  splitRel,
  withDir,
  withParent,
  type DirRef,
} from './beneath.js'

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants
const utf8 = new TextDecoder('utf-8', { fatal: true })
const readAsync = promisify(read)

/** A file's bytes as `read_file`'s text: refused (EILSEQ) when binary (a NUL byte) or not UTF-8. */
export function bytesAsText(at: string, bytes: Uint8Array): string {
  const nul = bytes.indexOf(0)
  if (nul !== -1) throw new WorkspaceError('EILSEQ', `${at} is a binary file (NUL byte at offset ${nul}); not returned as text`)
  try {
    return utf8.decode(bytes)
  } catch {
    throw new WorkspaceError('EILSEQ', `${at} is not valid UTF-8 text; not returned as text`)
  }
}

/**
 * UTF-8 text of a regular file. EFBIG over `maxBytes`, EILSEQ for binary content, EISDIR for a folder.
 * `seen` is given the descriptor's own fstat (what was read: a change tracker's signature of it).
 */
export function readTextBeneath(root: string, rel: string, maxBytes: number, seen?: (st: Stats) => void): Promise<string> {
  return withParent(root, rel, false, async (parent, name, at) => {
    let fd: number
    try {
      // O_NONBLOCK: a FIFO planted in the workspace must not hang the host.
      fd = openSync(entryPath(parent, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch (err) {
      throw beneathError(err, at)
    }
    try {
      const st = fstatSync(fd)
      if (st.isDirectory()) throw new WorkspaceError('EISDIR', `${at} is a folder; use list_dir`)
      if (!st.isFile()) throw new WorkspaceError('EIO', `${at} is not a regular file`)
      if (st.size > maxBytes) throw tooBig(at, st.size, maxBytes)
      const bytes = st.size <= SMALL_BYTES ? readAllSync(fd, st.size, maxBytes) : await readAll(fd, maxBytes)
      seen?.(st)
      if (bytes === undefined) throw new WorkspaceError('EFBIG', `${at} grew past the ${maxBytes}-byte read limit while being read`)
      return bytesAsText(at, bytes)
    } catch (err) {
      throw beneathError(err, at)
    } finally {
      closeSync(fd)
    }
  })
}

/** Reads to the end (the size may have changed since fstat); undefined past `maxBytes`. */
function readAllSync(fd: number, size: number, maxBytes: number): Buffer | undefined {
  const chunks: Buffer[] = []
  let total = 0
  for (let want = Math.max(size, 4096); ; want = 64 * 1024) {
    const buf = Buffer.allocUnsafe(want)
    const n = readSync(fd, buf, 0, want, null)
    if (n === 0) break
    chunks.push(buf.subarray(0, n))
    total += n
    if (total > maxBytes) return undefined
    // A regular file reads short only at its end: no second read to be told so (one syscall a file).
    if (n < want) break
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total)
}

/** `readAllSync`, off the thread (for big files). */
async function readAll(fd: number, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const buf = Buffer.allocUnsafe(1024 * 1024)
    const { bytesRead } = await readAsync(fd, buf, 0, buf.length, null)
    if (bytesRead === 0) return Buffer.concat(chunks, total)
    chunks.push(buf.subarray(0, bytesRead))
    total += bytesRead
    if (total > maxBytes) return undefined
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
  const info = (st: Stats): FileInfo => ({
    type: entryTypeOf(st),
    size: st.isDirectory() ? 0 : st.size,
    mtimeMs: Math.round(st.mtimeMs),
    mode: st.mode & 0o7777,
  })
  // The root's own descriptor: its /proc/self/fd entry is a magic link, and lstat would describe that link.
  if (splitRel(rel).length === 0) return withDir(root, '.', async (dir) => info(fstatSync(dir.fd)))
  // One metadata call, synchronous (beneath.ts says why); a missing entry is answered without an fs Error.
  return withParent(root, rel, false, async (parent, name, at) => {
    let st: Stats | undefined
    try {
      st = lstatSync(entryPath(parent, name), { throwIfNoEntry: false })
    } catch (err) {
      throw beneathError(err, at)
    }
    if (st === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${at}`)
    return info(st)
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

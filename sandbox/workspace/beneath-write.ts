/**
 * Writing a file beneath the root (beneath.ts's by-descriptor walk), two ways:
 *
 * - in place (`inPlace`): an existing regular file with one link is opened `O_WRONLY | O_NOFOLLOW` through
 *   its folder's descriptor and overwritten — never `O_TRUNC` first: the new bytes are written, then the
 *   file is cut to their length. The cheap way (no new inode, no rename: on ext4 a replacement by rename or
 *   by truncate costs a flush of the file's data, 3–9× a plain write), and what the tools people compare
 *   with (jscodeshift, ast-grep --update-all, comby -in-place) do. A reader at that very moment may see a
 *   half-written file; a run that must not show one stages (`--atomic`, `--dry-run`).
 * - replace (otherwise, and whenever in place could break a guarantee): a temp file created `O_EXCL |
 *   O_NOFOLLOW` in the same folder descriptor, then renamed over the name. Readers see the old or the new
 *   content, never half of it.
 *
 * Either way: a symlink at the point of use is refused (EACCES), never followed; a hard link shared with
 * another file is never written through (in place needs `nlink === 1` on the open descriptor, else the
 * name is replaced, and that one link must be the name itself: onlyNameIs); the mode is kept (a setuid/setgid/sticky file — a write clears the first two — is
 * replaced with its bits), and so is the owner (in place: the same inode; replaced, run as root: fchown).
 * A `durable` write is always a replacement, fsynced with its folder.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  ftruncateSync,
  open as openCb,
  openSync,
  rename as renameCb,
  unlinkSync,
  write,
  writeSync,
  type Stats,
} from 'node:fs'
import { open } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { errnoOf, WorkspaceError } from './ops.js'
import { beneathError, dirPath, entryPath, lstatOrUndefined, SMALL_BYTES, withParent, type DirRef } from './beneath.js'

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants
const openAsync = promisify(openCb)
const renameAsync = promisify(renameCb)
const writeAsync = promisify(write)
const fsyncFd = promisify(fsync)
/** Temp names: this process's random prefix and a counter (unique without a random draw per write). */
const TEMP_PREFIX = randomBytes(4).toString('hex')
let tempSeq = 0

export interface WriteOptions {
  /** Create missing parent folders (default true). */
  parents?: boolean
  /** fsync the file (and, replaced, its folder) before returning (crash-safe; slower). */
  durable?: boolean
  /** Overwrite an existing file in place where every guarantee allows it (default false: replace; never when durable). */
  inPlace?: boolean
}

/** Creates or replaces a file: in place where `inPlace` asks and allows, else atomically (see the top). */
export function writeBeneath(root: string, rel: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  return withParent(root, rel, options.parents ?? true, async (parent, name, at) => {
    const target = entryPath(parent, name)
    const old = lstatOrUndefined(target)
    if (old?.isDirectory() === true) throw new WorkspaceError('EISDIR', `${at} is a folder`)
    if (old?.isSymbolicLink() === true) throw new WorkspaceError('EACCES', `${at} is a symlink at the point of use; refused`)
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const durable = options.durable === true
    // A durable write is a crash-safe one: replaced and fsynced, never in place.
    if (options.inPlace === true && !durable && old !== undefined && inPlaceAllowed(old) && (await writeInPlace(target, bytes, at))) return
    await replace(parent, name, old, bytes, at, durable)
  })
}

/** A regular file with one name and plain permission bits (no setuid/setgid, which a write clears; no sticky). */
function inPlaceAllowed(st: Stats): boolean {
  return st.isFile() && st.nlink === 1 && (st.mode & 0o7000) === 0
}

/**
 * The opened file's one link is this very name, seen in one syscall (the name's inode and its link count
 * together). One link on the descriptor is not enough: a hard link to an outside file swapped in at the
 * name, opened, then replaced at the name again leaves that outside file with one link — its outside one
 * (found by test/security/workspace-inplace.test.ts under load). Asked twice: a swap inside the first
 * lookup would have to be won again inside the second. Once the file's only name is inside, a later link
 * to it from outside names a file of the workspace, never an outside file's old content.
 */
function onlyNameIs(target: string, opened: Stats): boolean {
  const now = lstatOrUndefined(target)
  return now !== undefined && now.ino === opened.ino && now.dev === opened.dev && now.nlink === 1
}

/** Errors of the open that mean "not this way" (a read-only mode, a busy executable, a FIFO): replace instead. */
const REPLACE_INSTEAD = new Set(['EACCES', 'EPERM', 'ETXTBSY', 'ENXIO', 'ENOENT', 'EISDIR', 'EWOULDBLOCK', 'EAGAIN'])

/**
 * Overwrites the file at `target` through an `O_NOFOLLOW` descriptor; false (nothing written) when what
 * was opened is not a file the guarantees let us write in place. A growing write writes its new tail first
 * (the part that needs new blocks: a full disk fails there, the old bytes untouched, cut back to their size),
 * then the head over the old bytes, then cuts the file to the new length.
 */
async function writeInPlace(target: string, bytes: Uint8Array, at: string): Promise<boolean> {
  let fd: number
  try {
    // O_NONBLOCK: a FIFO swapped in must not hang the host. O_NOFOLLOW: a symlink swapped in is ELOOP.
    fd = openSync(target, O_WRONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    if (REPLACE_INSTEAD.has(errnoOf(err) ?? '')) return false
    throw beneathError(err, at)
  }
  try {
    // The descriptor's own answer: whatever the name became since the lstat, this is what would be written.
    const st = fstatSync(fd)
    if (!inPlaceAllowed(st) || !onlyNameIs(target, st) || !onlyNameIs(target, st)) return false
    const size = st.size
    const head = Math.min(size, bytes.length)
    if (bytes.length > size) {
      try {
        await writeAt(fd, bytes, size, bytes.length)
      } catch (err) {
        try {
          ftruncateSync(fd, size)
        } catch {
          // best effort: the old bytes were not touched either way
        }
        throw err
      }
    }
    await writeAt(fd, bytes, 0, head)
    if (bytes.length < size) ftruncateSync(fd, bytes.length)
    return true
  } catch (err) {
    throw beneathError(err, at)
  } finally {
    closeSync(fd)
  }
}

/** Writes `bytes[from, to)` at file offset `from`: synchronously when small, through the thread pool when big. */
export async function writeAt(fd: number, bytes: Uint8Array, from: number, to: number): Promise<void> {
  if (to - from <= SMALL_BYTES) {
    for (let off = from; off < to; ) off += writeSync(fd, bytes, off, to - off, off)
    return
  }
  for (let off = from; off < to; ) off += (await writeAsync(fd, bytes, off, to - off, off)).bytesWritten
}

/**
 * The atomic replacement. Creating the temp file and renaming it are the costly steps (each changes the
 * folder: a journal write on most file systems), so those two go through the thread pool, where the writes
 * of a batch overlap; the walk and the small write stay synchronous.
 */
async function replace(
  parent: DirRef,
  name: string,
  old: Stats | undefined,
  bytes: Uint8Array,
  at: string,
  durable: boolean,
): Promise<void> {
  const target = entryPath(parent, name)
  const temp = entryPath(parent, `.${name.slice(0, 200)}.codeact-${TEMP_PREFIX}${(++tempSeq).toString(36)}`)
  let fd: number
  try {
    fd = await openAsync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, old ? old.mode & 0o7777 : 0o666)
  } catch (err) {
    throw beneathError(err, at)
  }
  let closed = false
  try {
    if (old) {
      // open() applied the umask; the replacement keeps exactly the old bits (and owner, when we may).
      keepMode(fd, old.mode & 0o7777)
      if (process.getuid?.() === 0 && (old.uid !== 0 || old.gid !== 0)) {
        try {
          fchownSync(fd, old.uid, old.gid)
        } catch {
          // best effort
        }
      }
    }
    await writeAt(fd, bytes, 0, bytes.length)
    if (durable) await fsyncFd(fd)
    closeSync(fd)
    closed = true
    await renameAsync(temp, target)
    if (durable) await fsyncDir(parent)
  } catch (err) {
    if (!closed) closeSync(fd)
    try {
      unlinkSync(temp)
    } catch {
      // never made it, or renamed already
    }
    throw beneathError(err, at)
  }
}

/**
 * fchmod, except where Node's permission model (the container runner runs under it) refuses the call
 * outright: there the mode open() gave stands.
 */
function keepMode(fd: number, mode: number): void {
  try {
    fchmodSync(fd, mode)
  } catch (err) {
    if (errnoOf(err) === 'ERR_ACCESS_DENIED') return
    throw err
  }
}

async function fsyncDir(dir: DirRef): Promise<void> {
  const fh = await open(dirPath(dir), O_RDONLY | O_DIRECTORY)
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

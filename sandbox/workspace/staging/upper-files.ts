/**
 * Reading and writing files of a stage's upper folder, and the small helpers a staged view shares.
 */
import * as crypto from 'node:crypto'
import { closeSync, constants, open as openCb, write as writeCb, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { bytesAsText } from '../beneath-files.js'
import { WorkspaceError, type EntryType } from '../ops.js'

/** A staged file's bytes as the text `read_file` answers, with the checks a read of the upper folder makes. */
export function textOfHeld(path: string, bytes: Buffer, maxBytes: number): string {
  if (bytes.length > maxBytes)
    throw new WorkspaceError(
      'EFBIG',
      `${path} is ${bytes.length} bytes, over the ${maxBytes}-byte read limit; read it with bash (head, sed -n) instead`,
    )
  return bytesAsText(path, bytes)
}
const openAsync = promisify(openCb)
const writeAsync = promisify(writeCb)
/** Content up to this size is written with synchronous calls once the file is open (as beneath-files.ts does). */
const SMALL_BYTES = 256 * 1024

/** One-shot `crypto.hash` where Node has it (20.12+). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash
export function digest(text: string): string {
  return oneShot ? oneShot('sha1', text, 'hex') : crypto.createHash('sha1').update(text).digest('hex')
}

export function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
}

export function typeOf(st: { isSymbolicLink(): boolean; isFile(): boolean; isDirectory(): boolean }): EntryType {
  return st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other'
}

/** Depth-first, names sorted at each level: the order `walk` promises. */
export function compareWalkPaths(a: string, b: string): number {
  const x = a.split('/')
  const y = b.split('/')
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
  }
  return x.length - y.length
}

/**
 * The stage is private (outside the workspace, reached by nothing but this view and the fold-back of a
 * staged bash, which never leaves a symlink where a folder is expected — `ensureParents` refuses those),
 * so its files are read and written plainly: O_NOFOLLOW on the entry, no descriptor walk, no temp+rename
 * (crash safety starts at the journal, when the stage is complete).
 */
export async function readUpperFile(upperPath: string, path: string, maxBytes: number): Promise<string> {
  let bytes: Buffer
  try {
    const fh = await open(upperPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    try {
      const st = await fh.stat()
      if (st.isDirectory()) throw new WorkspaceError('EISDIR', `${path} is a folder; use list_dir`)
      if (!st.isFile()) throw new WorkspaceError('EIO', `${path} is not a regular file`)
      if (st.size > maxBytes)
        throw new WorkspaceError(
          'EFBIG',
          `${path} is ${st.size} bytes, over the ${maxBytes}-byte read limit; read it with bash (head, sed -n) instead`,
        )
      bytes = await fh.readFile()
    } finally {
      await fh.close()
    }
  } catch (err) {
    if (err instanceof WorkspaceError) throw err
    if (codeOf(err) === 'ELOOP') throw new WorkspaceError('EACCES', `${path} is a symlink; refused (it is not followed)`)
    if (codeOf(err) === 'EISDIR') throw new WorkspaceError('EISDIR', `${path} is a folder; use list_dir`)
    throw new WorkspaceError('ENOENT', `no such file or folder: ${path}`)
  }
  return textOfHeld(path, bytes, Number.MAX_SAFE_INTEGER)
}

/** Creates (or truncates) a file of the upper folder and writes `bytes`: the open through the thread pool, small writes synchronous. */
export async function writeUpperFile(path: string, bytes: Buffer): Promise<void> {
  const fd = await openAsync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
  try {
    if (bytes.length <= SMALL_BYTES) for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off)
    else for (let off = 0; off < bytes.length; ) off += (await writeAsync(fd, bytes, off, bytes.length - off)).bytesWritten
  } finally {
    closeSync(fd)
  }
}

/**
 * Reading and writing files of a stage's upper folder, and the small helpers a staged view shares.
 */
import * as crypto from 'node:crypto'
import { closeSync, constants, open as openCb } from 'node:fs'
import { open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { bytesAsText } from '../beneath-files.js'
import { writeAt } from '../beneath-write.js'
import { errnoOf, tooBig, WorkspaceError } from '../ops.js'

/** A staged file's bytes as the text `read_file` answers, with the checks a read of the upper folder makes. */
export function textOfHeld(path: string, bytes: Buffer, maxBytes: number): string {
  if (bytes.length > maxBytes) throw tooBig(path, bytes.length, maxBytes)
  return bytesAsText(path, bytes)
}
const openAsync = promisify(openCb)

/** One-shot `crypto.hash` where Node has it (20.12+): a third of a Hash object's cost per small file. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash
export function digest(text: string): string {
  return oneShot ? oneShot('sha1', text, 'hex') : crypto.createHash('sha1').update(text).digest('hex')
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
      if (st.size > maxBytes) throw tooBig(path, st.size, maxBytes)
      bytes = await fh.readFile()
    } finally {
      await fh.close()
    }
  } catch (err) {
    if (err instanceof WorkspaceError) throw err
    if (errnoOf(err) === 'ELOOP') throw new WorkspaceError('EACCES', `${path} is a symlink; refused (it is not followed)`)
    if (errnoOf(err) === 'EISDIR') throw new WorkspaceError('EISDIR', `${path} is a folder; use list_dir`)
    throw new WorkspaceError('ENOENT', `no such file or folder: ${path}`)
  }
  return textOfHeld(path, bytes, Number.MAX_SAFE_INTEGER)
}

/** Creates (or truncates) a file of the upper folder and writes `bytes`: the open through the thread pool, small writes synchronous. */
export async function writeUpperFile(path: string, bytes: Buffer): Promise<void> {
  const fd = await openAsync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
  try {
    await writeAt(fd, bytes, 0, bytes.length)
  } finally {
    closeSync(fd)
  }
}

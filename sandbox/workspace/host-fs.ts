/**
 * The file half of the host `WorkspaceOps`: node:fs, re-checking containment at the point of use.
 * The policy checked the path a moment ago, but a program (or a `bash` running next to it) may have
 * swapped a component for a symlink since. Files are opened with O_NOFOLLOW and the opened descriptor's
 * real path (/proc/self/fd) is checked before a byte is read or written.
 */
import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, readdir, readlink, realpath, rename, rm, rmdir, unlink, type FileHandle } from 'node:fs/promises'
import { basename, join, relative, sep } from 'node:path'
import { errnoOf, isWithin } from './paths.js'
import { WorkspaceError, type DirEntry, type EntryType, type FileInfo, type WalkEntry, type WalkResult, type WorkspaceConfig } from './ops.js'

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Node's own fs errors keep their errno code; the message loses the host's noise. */
function fsError(err: unknown, path: string): WorkspaceError {
  if (err instanceof WorkspaceError) return err
  const code = errnoOf(err)
  switch (code) {
    case 'ENOENT':
      return new WorkspaceError('ENOENT', `no such file or folder: ${path}`)
    case 'EEXIST':
    case 'EISDIR':
    case 'ENOTDIR':
    case 'ENOTEMPTY':
    case 'EROFS':
      return new WorkspaceError(code, `${code}: ${path}`)
    case 'ENOSPC':
    case 'EDQUOT':
      return new WorkspaceError(code, `${code}: no space left on the device writing ${path}`)
    case 'ELOOP':
      return new WorkspaceError('EACCES', `${path} became a symlink after it was checked; refused`)
    default:
      return new WorkspaceError('EIO', `${code ?? 'error'}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

export function entryType(s: Stats | { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (s.isSymbolicLink()) return 'symlink'
  if (s.isFile()) return 'file'
  if (s.isDirectory()) return 'dir'
  return 'other'
}

export class HostFs {
  constructor(private readonly config: WorkspaceConfig) {}

  /** Where an open descriptor really is (Linux); falls back to realpath of the name elsewhere. */
  private async fdPath(fh: FileHandle, path: string): Promise<string> {
    try {
      return await readlink(`/proc/self/fd/${fh.fd}`)
    } catch {
      return realpath(path)
    }
  }

  private checkInside(real: string, path: string): void {
    if (!isWithin(real, this.config.root)) {
      throw new WorkspaceError('EACCES', `${path} moved outside the workspace after it was checked; refused`)
    }
  }

  private checkWritable(real: string, path: string): void {
    this.checkInside(real, path)
    if (this.config.readOnly.some((ro) => isWithin(real, ro))) {
      throw new WorkspaceError('EROFS', `${path} is read-only`)
    }
  }

  async readFile(path: string, maxBytes: number): Promise<string> {
    let fh: FileHandle
    try {
      // O_NONBLOCK: a FIFO planted in the workspace must not hang the host.
      fh = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch (err) {
      throw fsError(err, path)
    }
    try {
      this.checkInside(await this.fdPath(fh, path), path)
      const st = await fh.stat()
      if (st.isDirectory()) throw new WorkspaceError('EISDIR', `${path} is a folder; use list_dir`)
      if (!st.isFile()) throw new WorkspaceError('EIO', `${path} is not a regular file`)
      if (st.size > maxBytes) {
        throw new WorkspaceError('EFBIG', `${path} is ${st.size} bytes, over the ${maxBytes}-byte read limit; read it with bash (head, sed -n) instead`)
      }
      const bytes = await fh.readFile()
      const nul = bytes.indexOf(0)
      if (nul !== -1) throw new WorkspaceError('EILSEQ', `${path} is a binary file (NUL byte at offset ${nul}); not returned as text`)
      try {
        return utf8.decode(bytes)
      } catch {
        throw new WorkspaceError('EILSEQ', `${path} is not valid UTF-8 text; not returned as text`)
      }
    } catch (err) {
      throw fsError(err, path)
    } finally {
      await fh.close()
    }
  }

  /**
   * Creates `path` and its missing parents one level at a time, checking each level's real path, so a
   * component swapped for a symlink cannot make `mkdir -p` build folders outside the root.
   */
  async ensureDir(path: string): Promise<void> {
    const { root } = this.config
    if (!isWithin(path, root)) throw new WorkspaceError('EACCES', `${path} is outside the workspace`)
    let cur = root
    for (const part of relative(root, path).split(sep).filter((p) => p !== '')) {
      const next = join(cur, part)
      try {
        await mkdir(next)
      } catch (err) {
        if (errnoOf(err) !== 'EEXIST') throw fsError(err, next)
      }
      const st = await lstat(next).catch((err: unknown) => {
        throw fsError(err, next)
      })
      if (st.isSymbolicLink()) {
        const real = await realpath(next).catch((err: unknown) => {
          throw fsError(err, next)
        })
        this.checkInside(real, next)
        cur = real
      } else if (st.isDirectory()) {
        cur = next
      } else {
        throw new WorkspaceError(next === path ? 'EEXIST' : 'ENOTDIR', `${next} exists and is not a folder`)
      }
      this.checkWritable(cur, next)
    }
  }

  async writeFile(path: string, content: string): Promise<void> {
    // The common case, an existing folder, costs one realpath; the level-by-level walk is for creating.
    const parent = join(path, '..')
    const parentReal = await realpath(parent).catch(() => undefined)
    if (parentReal === undefined) await this.ensureDir(parent)
    else this.checkWritable(parentReal, parent)
    let fh: FileHandle
    let created = false
    try {
      // Open without O_TRUNC, check where the descriptor really is, only then truncate.
      fh = await open(path, O_WRONLY | O_NOFOLLOW).catch(async (err: unknown) => {
        if (errnoOf(err) !== 'ENOENT') throw err
        created = true
        return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)
      })
    } catch (err) {
      throw fsError(err, path)
    }
    try {
      const real = await this.fdPath(fh, path)
      try {
        this.checkWritable(real, path)
      } catch (err) {
        // Undo our own empty file if the folder was swapped out from under us.
        if (created) await unlink(real).catch(() => undefined)
        throw err
      }
      const st = await fh.stat()
      // A hard link may share this inode with a file outside the workspace (a tree made with `cp -al`):
      // writing in place would change that file too. Replace the entry instead, leaving the inode alone.
      if (st.nlink > 1) return await this.replaceEntry(real, content, st.mode & 0o7777)
      await fh.truncate(0)
      await fh.writeFile(content, 'utf8')
    } catch (err) {
      throw fsError(err, path)
    } finally {
      await fh.close()
    }
  }

  /** Writes a sibling temp file (checked like any write) and renames it over `real`. */
  private async replaceEntry(real: string, content: string, mode: number): Promise<void> {
    const temp = join(real, '..', `.${basename(real)}.codeact-${process.pid}-${Date.now().toString(36)}`)
    const fh = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode)
    try {
      this.checkWritable(await this.fdPath(fh, temp), temp)
      await fh.writeFile(content, 'utf8')
    } catch (err) {
      await unlink(temp).catch(() => undefined)
      throw err
    } finally {
      await fh.close()
    }
    await rename(temp, real)
  }

  async mkdir(path: string): Promise<void> {
    await this.ensureDir(path)
  }

  async remove(path: string, recursive: boolean): Promise<void> {
    const { root } = this.config
    if (path === root) throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
    // The folder holding the entry must still be where the policy saw it.
    const parentReal = await realpath(join(path, '..')).catch((err: unknown) => {
      throw fsError(err, path)
    })
    this.checkWritable(parentReal, path)
    const target = join(parentReal, relative(join(path, '..'), path))
    if (this.config.readOnly.some((ro) => isWithin(ro, target))) {
      throw new WorkspaceError('EROFS', `${path} holds a read-only path`)
    }
    try {
      const st = await lstat(target)
      if (!st.isDirectory()) await unlink(target) // a file, or a symlink itself (never its target)
      else if (recursive) await rm(target, { recursive: true }) // rm does not follow symlinks inside
      else await rmdir(target)
    } catch (err) {
      throw fsError(err, path)
    }
  }

  async readdir(path: string): Promise<DirEntry[]> {
    try {
      this.checkInside(await realpath(path), path)
      const dirents = await readdir(path, { withFileTypes: true })
      const out: DirEntry[] = []
      for (const d of dirents) {
        const st = await lstat(join(path, d.name)).catch(() => undefined)
        out.push({ name: d.name, type: entryType(st ?? d), size: st && !st.isDirectory() ? st.size : 0 })
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    } catch (err) {
      throw fsError(err, path)
    }
  }

  async stat(path: string): Promise<FileInfo> {
    try {
      const st = await lstat(path)
      return { type: entryType(st), size: st.isDirectory() ? 0 : st.size, mtimeMs: Math.round(st.mtimeMs), mode: st.mode & 0o7777 }
    } catch (err) {
      throw fsError(err, path)
    }
  }

  async walk(path: string, limit: number): Promise<WalkResult> {
    const entries: WalkEntry[] = []
    try {
      this.checkInside(await realpath(path), path)
    } catch (err) {
      throw fsError(err, path)
    }
    // Depth first over sorted names, never into symlinks: a walk cannot leave the root.
    const visit = async (dir: string, prefix: string): Promise<boolean> => {
      const dirents = await readdir(dir, { withFileTypes: true }).catch(() => [])
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const d of dirents) {
        if (entries.length >= limit) return false
        const rel = prefix === '' ? d.name : `${prefix}/${d.name}`
        const type = entryType(d)
        entries.push({ path: rel, type })
        if (type === 'dir' && !(await visit(join(dir, d.name), rel))) return false
      }
      return true
    }
    const complete = await visit(path, '')
    return { entries, truncated: !complete }
  }
}

/**
 * A staged view of a workspace, as `WorkspaceOps`: the real tree is the lower layer (read only, through
 * the backend's own ops), a private folder outside the workspace is the upper layer (every write lands
 * there, through the host's guarded ops rooted at that folder), and removals are recorded as whiteouts.
 * Reads see the run's own writes; nothing reaches the real tree until `apply` (atomic) — or never (dry run).
 *
 * Semantics are overlayfs's: an upper entry hides the lower one; a lower path is visible only when neither
 * it nor an ancestor is whited out; a whited-out folder that is created again is opaque (no lower children).
 */
import * as crypto from 'node:crypto'
import { closeSync, constants, lstatSync, open as openCb, write as writeCb, writeSync } from 'node:fs'
import { chmod, lstat, mkdir, open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { join, relative } from 'node:path'
import { createHostOps } from '../host-ops.js'
import { relBelow } from '../paths.js'
import {
  WorkspaceError,
  type DirEntry,
  type EntryType,
  type ExecRequest,
  type ExecResult,
  type FileInfo,
  type WalkEntry,
  type WalkResult,
  type WorkspaceConfig,
  type WorkspaceOps,
} from '../ops.js'

export interface StagedLayers {
  /** The real workspace (its config: root, read-only parts). */
  config: WorkspaceConfig
  /** Reads of the real tree: the backend's ops (host or container). */
  lower: WorkspaceOps
  /** The upper folder (outside the workspace). */
  upper: string
  /** Runs a command on the staged view, or refuses; see staging/exec.ts. */
  exec(view: StagedView, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult>
}

const utf8 = new TextDecoder('utf-8', { fatal: true })
const openAsync = promisify(openCb)
const writeAsync = promisify(writeCb)
/** Content up to this size is written with synchronous calls once the file is open (as beneath-files.ts does). */
const SMALL_BYTES = 256 * 1024

/** One-shot `crypto.hash` where Node has it (20.12+). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash
function digest(text: string): string {
  return oneShot ? oneShot('sha1', text, 'hex') : crypto.createHash('sha1').update(text).digest('hex')
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
}

function typeOf(st: { isSymbolicLink(): boolean; isFile(): boolean; isDirectory(): boolean }): EntryType {
  return st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other'
}

/** How a message names a workspace-relative path ('.' for the root). */
const shown = (rel: string): string => (rel === '' ? '.' : rel)

/** Depth-first, names sorted at each level: the order `walk` promises. */
export function compareWalkPaths(a: string, b: string): number {
  const x = a.split('/')
  const y = b.split('/')
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
  }
  return x.length - y.length
}

export class StagedView implements WorkspaceOps {
  /** Workspace-relative paths removed from the lower layer (each hides its subtree there). */
  readonly whiteouts = new Set<string>()
  readonly root: string
  readonly upperRoot: string
  private readonly upperOps: WorkspaceOps
  /** Folders known to exist in the view; cleared by anything that can remove one. */
  private readonly knownDirs = new Set<string>([''])
  /**
   * Digests of what the run read from the real tree and last wrote to the stage, per file (forgotten when
   * a `bash` fold-back or a remove may have changed either): a file whose two digests differ is known to
   * differ at the end without reading both copies again (`knownDifferent`).
   */
  private readonly readDigest = new Map<string, string>()
  private readonly wroteDigest = new Map<string, string>()

  constructor(private readonly layers: StagedLayers) {
    this.root = layers.config.root
    this.upperRoot = layers.upper
    const mapRo = (ro: string): string => join(layers.upper, relative(this.root, ro))
    this.upperOps = createHostOps({ root: layers.upper, readOnly: layers.config.readOnly.map(mapRo), exec: false, network: false })
  }

  /** The real tree's ops (reads only). */
  layersLower(): WorkspaceOps {
    return this.layers.lower
  }

  /** `a/b` for a path inside the root ('' for the root); EACCES otherwise. */
  rel(path: string): string {
    const r = relBelow(this.root, path)
    if (r.startsWith('..') || r.startsWith('/')) throw new WorkspaceError('EACCES', `${path} is outside the workspace`)
    return r
  }

  upperPath(rel: string): string {
    return rel === '' ? this.upperRoot : join(this.upperRoot, rel)
  }

  lowerPath(rel: string): string {
    return rel === '' ? this.root : join(this.root, rel)
  }

  /** Whether the lower entry at `rel` is hidden by a whiteout on it or an ancestor. */
  hidden(rel: string): boolean {
    if (this.whiteouts.size === 0 || rel === '') return false
    let at = rel.length
    for (;;) {
      if (this.whiteouts.has(rel.slice(0, at))) return true
      at = rel.lastIndexOf('/', at - 1)
      if (at <= 0) return false
    }
  }

  /**
   * Asked once or twice per call: one synchronous lstat of the private stage costs less than a thread-pool
   * round trip, and a missing entry (the usual answer) returns undefined instead of building an Error.
   */
  async upperType(rel: string): Promise<EntryType | undefined> {
    try {
      const st = lstatSync(this.upperPath(rel), { throwIfNoEntry: false })
      return st ? typeOf(st) : undefined
    } catch {
      return undefined
    }
  }

  /** The mode of the lower file last looked at (a staged copy of it keeps it), by path. */
  private lastLower: { rel: string; mode: number } | undefined
  /** The mode a new upper file gets (0644 under this process's umask), learned at the first write. */
  private createdMode: number | undefined

  async lowerType(rel: string): Promise<EntryType | undefined> {
    if (this.hidden(rel)) return undefined
    try {
      const info = await this.layers.lower.stat(this.lowerPath(rel))
      this.lastLower = { rel, mode: info.mode }
      return info.type
    } catch (err) {
      if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return undefined
      throw err
    }
  }

  /** The entry type at `rel` in the view, or undefined when nothing is there. */
  async viewType(rel: string, upper?: { type: EntryType | undefined }): Promise<EntryType | undefined> {
    if (this.knownDirs.has(rel)) return 'dir'
    const up = upper ? upper.type : await this.upperType(rel)
    if (up !== undefined) return up
    // A lower entry under an upper file or symlink is not reachable.
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
    if (rel !== '' && (await this.viewType(parent)) !== 'dir') return undefined
    const low = await this.lowerType(rel)
    if (low === 'dir') this.knownDirs.add(rel)
    return low
  }

  /** Makes every folder above `rel` exist in the upper layer, refusing when the view has a file there. */
  private async ensureParents(rel: string): Promise<void> {
    const parts = rel.split('/')
    let cur = ''
    for (let i = 0; i < parts.length - 1; i++) {
      cur = cur === '' ? parts[i]! : `${cur}/${parts[i]}`
      const t = await this.viewType(cur)
      if (t !== undefined && t !== 'dir') throw new WorkspaceError('ENOTDIR', `${cur} is not a folder (writing ${rel})`)
    }
  }

  private parentOf(rel: string): string {
    return rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
  }

  /**
   * The stage is private (outside the workspace, reached by nothing but this view and the fold-back of a
   * staged bash, which never leaves a symlink where a folder is expected — `ensureParents` refuses those),
   * so its files are read and written plainly: O_NOFOLLOW on the entry, no descriptor walk, no temp+rename
   * (crash safety starts at the journal, when the stage is complete).
   */
  private async readUpper(rel: string, maxBytes: number): Promise<string> {
    // Messages name the workspace-relative path, as the direct run's do, never the host's.
    const path = shown(rel)
    let bytes: Buffer
    try {
      const fh = await open(this.upperPath(rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
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
    const nul = bytes.indexOf(0)
    if (nul !== -1) throw new WorkspaceError('EILSEQ', `${path} is a binary file (NUL byte at offset ${nul}); not returned as text`)
    try {
      return utf8.decode(bytes)
    } catch {
      throw new WorkspaceError('EILSEQ', `${path} is not valid UTF-8 text; not returned as text`)
    }
  }

  private readonly upperDirs = new Set<string>()

  private async writeUpper(rel: string, content: string): Promise<void> {
    const parent = this.parentOf(rel)
    if (!this.upperDirs.has(parent)) {
      await mkdir(this.upperPath(parent), { recursive: true, mode: 0o755 })
      this.upperDirs.add(parent)
    }
    // Creating the file changes its folder (the costly step: through the thread pool, where a batch's
    // writes overlap); the small write and the close stay synchronous.
    this.wroteDigest.delete(rel)
    const fd = await openAsync(
      this.upperPath(rel),
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    )
    try {
      const bytes = Buffer.from(content, 'utf8')
      if (bytes.length <= SMALL_BYTES) for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off)
      else for (let off = 0; off < bytes.length; ) off += (await writeAsync(fd, bytes, off, bytes.length - off)).bytesWritten
    } finally {
      closeSync(fd)
    }
    this.wroteDigest.set(rel, digest(content))
  }

  readFile = async (path: string, maxBytes: number): Promise<string> => {
    const rel = this.rel(path)
    if ((await this.upperType(rel)) !== undefined) return this.readUpper(rel, maxBytes)
    // The lower read itself answers ENOENT, EISDIR …; only what the view hides needs saying here.
    if (this.hidden(rel) || (await this.viewType(this.parentOf(rel))) !== 'dir')
      throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    const text = await this.layers.lower.readFile(path, maxBytes)
    this.readDigest.set(rel, digest(text))
    return text
  }

  /**
   * True when the run read this file from the real tree and then wrote the stage with other bytes (no
   * `bash` or remove since): it is a change, whatever else the finish finds. Only ever says "differs" —
   * the one way it can be wrong (the real file changed meanwhile to exactly the staged bytes) still
   * applies the same bytes; anything else is compared byte for byte.
   */
  knownDifferent(rel: string): boolean {
    const read = this.readDigest.get(rel)
    return read !== undefined && this.wroteDigest.has(rel) && this.wroteDigest.get(rel) !== read
  }

  private forgetDigests(rel?: string): void {
    if (rel === undefined) {
      this.readDigest.clear()
      this.wroteDigest.clear()
      return
    }
    for (const m of [this.readDigest, this.wroteDigest]) for (const k of m.keys()) if (k === rel || k.startsWith(`${rel}/`)) m.delete(k)
  }

  writeFile = async (path: string, content: string): Promise<void> => {
    const rel = this.rel(path)
    const up = await this.upperType(rel)
    if (up === 'file') return this.writeUpper(rel, content)
    // The upper layer was just asked: the view's answer needs only the lower one.
    const t = up ?? (await this.viewType(rel, { type: up }))
    if (t === 'dir') throw new WorkspaceError('EISDIR', `EISDIR: ${shown(rel)}`)
    if (t === 'symlink') throw new WorkspaceError('EACCES', `${shown(rel)} is a symlink; refused`)
    await this.ensureParents(rel)
    await this.writeUpper(rel, content)
    // A staged copy of an existing file keeps its mode (an executable stays executable once applied).
    if (t === 'file' && up === undefined) {
      const known = this.lastLower?.rel === rel ? this.lastLower.mode : undefined
      const mode = known ?? (await this.layers.lower.stat(path).catch(() => undefined))?.mode
      this.createdMode ??= (await lstat(this.upperPath(rel)).catch(() => undefined))?.mode
      if (mode !== undefined && (mode & 0o7777) !== ((this.createdMode ?? -1) & 0o7777))
        await chmod(this.upperPath(rel), mode).catch(() => undefined)
    }
  }

  mkdir = async (path: string): Promise<void> => {
    const rel = this.rel(path)
    if (rel === '') return
    const t = await this.viewType(rel)
    // Present in the view; the upper layer needs it only once something is written under it.
    if (t === 'dir') return
    if (t !== undefined) throw new WorkspaceError('EEXIST', `${shown(rel)} exists and is not a folder`)
    await this.ensureParents(rel)
    await this.upperOps.mkdir(this.upperPath(rel))
    this.knownDirs.add(rel)
  }

  remove = async (path: string, recursive: boolean): Promise<void> => {
    const rel = this.rel(path)
    if (rel === '') throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
    const t = await this.viewType(rel)
    if (t === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    if (t === 'dir' && !recursive && (await this.readdir(path)).length > 0)
      throw new WorkspaceError('ENOTEMPTY', `ENOTEMPTY: ${shown(rel)}`)
    for (const d of this.knownDirs) if (d === rel || d.startsWith(rel + '/')) this.knownDirs.delete(d)
    for (const d of this.upperDirs) if (d === rel || d.startsWith(rel + '/')) this.upperDirs.delete(d)
    this.forgetDigests(rel)
    if ((await this.upperType(rel)) !== undefined) await this.upperOps.remove(this.upperPath(rel), true)
    if ((await this.lowerType(rel)) !== undefined) this.whiteouts.add(rel)
  }

  readdir = async (path: string): Promise<DirEntry[]> => {
    const rel = this.rel(path)
    const t = await this.viewType(rel)
    if (t === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    if (t !== 'dir') throw new WorkspaceError('ENOTDIR', `ENOTDIR: ${shown(rel)}`)
    const byName = new Map<string, DirEntry>()
    if ((await this.lowerType(rel)) === 'dir' && (await this.upperType(rel)) !== 'symlink') {
      for (const e of await this.layers.lower.readdir(path)) {
        if (!this.hidden(rel === '' ? e.name : `${rel}/${e.name}`)) byName.set(e.name, e)
      }
    }
    if ((await this.upperType(rel)) === 'dir') for (const e of await this.upperOps.readdir(this.upperPath(rel))) byName.set(e.name, e)
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  stat = async (path: string): Promise<FileInfo> => {
    const rel = this.rel(path)
    if ((await this.upperType(rel)) !== undefined) return this.upperOps.stat(this.upperPath(rel))
    if ((await this.viewType(rel)) === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    return this.layers.lower.stat(path)
  }

  walk = async (path: string, limit: number): Promise<WalkResult> => {
    const rel = this.rel(path)
    const t = await this.viewType(rel)
    if (t === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    if (t !== 'dir') return { entries: [], truncated: false }
    const prefix = rel === '' ? '' : rel + '/'
    const merged = new Map<string, EntryType>()
    let truncated = false
    if ((await this.lowerType(rel)) === 'dir') {
      const low = await this.layers.lower.walk(path, limit)
      truncated = low.truncated
      for (const e of low.entries) if (!this.hidden(prefix + e.path)) merged.set(e.path, e.type)
    }
    if ((await this.upperType(rel)) === 'dir') {
      const up = await this.upperOps.walk(this.upperPath(rel), limit)
      truncated ||= up.truncated
      for (const e of up.entries) {
        // An upper non-folder hides whatever the lower layer has beneath that name.
        if (e.type !== 'dir' && merged.get(e.path) === 'dir')
          for (const k of merged.keys()) if (k.startsWith(e.path + '/')) merged.delete(k)
        merged.set(e.path, e.type)
      }
    }
    const entries: WalkEntry[] = [...merged].map(([p, type]) => ({ path: p, type })).sort((a, b) => compareWalkPaths(a.path, b.path))
    if (entries.length > limit) return { entries: entries.slice(0, limit), truncated: true }
    return { entries, truncated }
  }

  exec = (request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> => {
    this.knownDirs.clear()
    this.knownDirs.add('')
    this.upperDirs.clear()
    this.forgetDigests()
    // The fold-back may have replaced folders: forget what was known about them once it is done.
    return this.layers.exec(this, request, signal).finally(() => {
      this.knownDirs.clear()
      this.knownDirs.add('')
      this.upperDirs.clear()
      this.forgetDigests()
    })
  }
}

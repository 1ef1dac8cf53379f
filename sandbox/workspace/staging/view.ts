/**
 * A staged view of a workspace, as `WorkspaceOps`: the real tree is the lower layer (read only, through
 * the backend's own ops), a private folder outside the workspace is the upper layer (every write lands
 * there: in memory (staging/memory.ts) while it fits, else in that folder, through the host's guarded ops
 * rooted at it), and removals are recorded as whiteouts.
 * Reads see the run's own writes; nothing reaches the real tree until `apply` (atomic) — or never (dry run).
 *
 * Semantics are overlayfs's: an upper entry hides the lower one; a lower path is visible only when neither
 * it nor an ancestor is whited out; a whited-out folder that is created again is opaque (no lower children).
 */
import { lstatSync } from 'node:fs'
import { chmod, lstat, mkdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { createHostOps } from '../host-ops.js'
import { isWithin, relBelow } from '../paths.js'
import { MemoryLayer, memoryBudget } from './memory.js'
import { compareWalkPaths, digest, readUpperFile, textOfHeld, writeUpperFile } from './upper-files.js'
import { byName, entryTypeOf } from '../beneath.js'
import { inPool } from './pool.js'

export { compareWalkPaths }
import {
  errnoOf,
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

/** How a message names a workspace-relative path ('.' for the root), never the host's. */
const shown = (rel: string): string => (rel === '' ? '.' : rel)

export class StagedView implements WorkspaceOps {
  /** Workspace-relative paths removed from the lower layer (each hides its subtree there). */
  readonly whiteouts = new Set<string>()
  readonly root: string
  readonly upperRoot: string
  private readonly upperOps: WorkspaceOps
  /** The run's writes and folders not (yet) in the upper folder: nothing is created on disk for them. */
  readonly memory = new MemoryLayer(memoryBudget())
  /** Whether the upper folder holds anything yet (a spill, a materialise, a bash fold-back). */
  private onDisk = false
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
    return this.memory.type(rel) ?? this.diskType(rel)
  }

  /** The entry type in the upper folder on disk (nothing there until something spilled or was materialised). */
  diskType(rel: string): EntryType | undefined {
    if (!this.onDisk) return undefined
    try {
      const st = lstatSync(this.upperPath(rel), { throwIfNoEntry: false })
      return st ? entryTypeOf(st) : undefined
    } catch {
      return undefined
    }
  }

  /** The mode a new upper file gets (0644 under this process's umask), learned at the first write. */
  private createdMode: number | undefined

  async lowerType(rel: string): Promise<EntryType | undefined> {
    if (this.hidden(rel)) return undefined
    try {
      const info = await this.layers.lower.stat(this.lowerPath(rel))
      return info.type
    } catch (err) {
      if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return undefined
      throw err
    }
  }

  /** The entry type at `rel` in the view, or undefined when nothing is there. */
  async viewType(rel: string, upper?: { type: EntryType | undefined }): Promise<EntryType | undefined> {
    if (this.knownDirs.has(rel)) return 'dir'
    const up = upper ? upper.type : await this.upperType(rel)
    if (up !== undefined) return up
    // A lower entry under an upper file or symlink is not reachable.
    if (rel !== '' && (await this.viewType(this.parentOf(rel))) !== 'dir') return undefined
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
      if (t !== undefined && t !== 'dir') throw new WorkspaceError('ENOTDIR', `${cur} is not a folder (writing ${shown(rel)})`)
      // A missing folder is made in memory (the upper folder gets it when a file under it lands there).
      if (t === undefined) {
        this.memory.addDir(cur)
        this.knownDirs.add(cur)
      }
    }
  }

  private parentOf(rel: string): string {
    return rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
  }

  private readonly upperDirs = new Set<string>()

  /** Writes a file of the upper folder; the caller keeps the digests (`wroteDigest`) right. */
  private async writeUpper(rel: string, bytes: Buffer): Promise<void> {
    this.onDisk = true
    const parent = this.parentOf(rel)
    if (!this.upperDirs.has(parent)) {
      await mkdir(this.upperPath(parent), { recursive: true, mode: 0o755 })
      this.upperDirs.add(parent)
    }
    // Creating the file changes its folder (the costly step: through the thread pool, where a batch's
    // writes overlap); the small write and the close stay synchronous.
    await writeUpperFile(this.upperPath(rel), bytes)
  }

  readFile = async (path: string, maxBytes: number): Promise<string> => {
    const rel = this.rel(path)
    const held = this.memory.files.get(rel)
    if (held) return textOfHeld(shown(rel), held.bytes, maxBytes)
    if (this.memory.dirs.has(rel)) throw new WorkspaceError('EISDIR', `${shown(rel)} is a folder; use list_dir`)
    if (this.diskType(rel) !== undefined) return readUpperFile(this.upperPath(rel), shown(rel), maxBytes)
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
    const bytes = Buffer.from(content, 'utf8')
    const disk = this.diskType(rel)
    this.wroteDigest.delete(rel)
    if (disk === 'file') {
      await this.writeUpper(rel, bytes)
      this.wroteDigest.set(rel, digest(content))
      return
    }
    if (!this.memory.files.has(rel)) {
      // Read from the real tree since the last bash or remove: a regular file there (the read refuses
      // anything else), its folders known; no second look at the real tree is needed.
      const t = disk ?? (this.readDigest.has(rel) ? 'file' : await this.viewType(rel, { type: this.memory.type(rel) }))
      if (t === 'dir') throw new WorkspaceError('EISDIR', `EISDIR: ${shown(rel)}`)
      if (t === 'symlink') throw new WorkspaceError('EACCES', `${shown(rel)} is a symlink; refused`)
      await this.ensureParents(rel)
    }
    if (this.memory.fits(rel, bytes.length)) {
      this.memory.setFile(rel, bytes)
      this.wroteDigest.set(rel, digest(content))
      return
    }
    // Past the memory budget: this file goes to the upper folder (and so does every later write of it).
    this.memory.removeTree(rel)
    await this.writeUpper(rel, bytes)
    this.wroteDigest.set(rel, digest(content))
    if (!this.hidden(rel)) await this.keepMode(rel)
  }

  /** A staged copy of an existing file keeps its mode (an executable stays executable once applied). */
  private async keepMode(rel: string): Promise<void> {
    // One synchronous lstat: the mode is all that is read (the apply reaches the real file beneath the root).
    const info = lstatSync(this.lowerPath(rel), { throwIfNoEntry: false })
    if (!info?.isFile()) return
    this.createdMode ??= (await lstat(this.upperPath(rel)).catch(() => undefined))?.mode
    if ((info.mode & 0o7777) !== ((this.createdMode ?? -1) & 0o7777)) await chmod(this.upperPath(rel), info.mode).catch(() => undefined)
  }

  /**
   * Writes what memory holds (every entry, or the files named) into the upper folder, as the kernel overlay
   * of a `bash` command and the renames of an apply need it, and forgets it here.
   */
  async materialise(only?: readonly string[]): Promise<void> {
    const files = only ?? [...this.memory.files.keys()]
    const dirs = only ? [] : [...this.memory.dirs]
    for (const d of dirs.sort((a, b) => a.length - b.length)) {
      if (this.upperDirs.has(d)) continue
      await mkdir(this.upperPath(d), { recursive: true, mode: 0o755 })
      this.upperDirs.add(d)
      this.onDisk = true
    }
    await inPool(files, 8, async (rel) => {
      const held = this.memory.files.get(rel)
      if (!held) return
      await this.writeUpper(rel, held.bytes)
      if (!this.hidden(rel)) await this.keepMode(rel)
    })
    if (only) for (const rel of only) this.memory.removeTree(rel)
    else this.memory.clear()
  }

  mkdir = async (path: string): Promise<void> => {
    const rel = this.rel(path)
    if (rel === '') return
    const t = await this.viewType(rel)
    // Present in the view; the upper layer needs it only once something is written under it.
    if (t === 'dir') return
    if (t !== undefined) throw new WorkspaceError('EEXIST', `${shown(rel)} exists and is not a folder`)
    if (this.layers.config.readOnly.some((ro) => isWithin(path, ro)))
      throw new WorkspaceError('EROFS', `${JSON.stringify(path)} is read-only`)
    await this.ensureParents(rel)
    this.memory.addDir(rel)
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
    this.memory.removeTree(rel)
    if (this.diskType(rel) !== undefined) await this.upperOps.remove(this.upperPath(rel), true)
    if ((await this.lowerType(rel)) !== undefined) this.whiteouts.add(rel)
  }

  readdir = async (path: string): Promise<DirEntry[]> => {
    const rel = this.rel(path)
    const t = await this.viewType(rel)
    if (t === undefined) throw new WorkspaceError('ENOENT', `no such file or folder: ${shown(rel)}`)
    if (t !== 'dir') throw new WorkspaceError('ENOTDIR', `ENOTDIR: ${shown(rel)}`)
    const entries = new Map<string, DirEntry>()
    if ((await this.lowerType(rel)) === 'dir' && (await this.upperType(rel)) !== 'symlink') {
      for (const e of await this.layers.lower.readdir(path)) {
        if (!this.hidden(rel === '' ? e.name : `${rel}/${e.name}`)) entries.set(e.name, e)
      }
    }
    if (this.diskType(rel) === 'dir') for (const e of await this.upperOps.readdir(this.upperPath(rel))) entries.set(e.name, e)
    for (const e of this.memory.list(rel)) entries.set(e.name, e)
    return [...entries.values()].sort(byName)
  }

  stat = async (path: string): Promise<FileInfo> => {
    const rel = this.rel(path)
    const held = this.memory.files.get(rel)
    if (held) {
      const lower = this.hidden(rel) ? undefined : lstatSync(this.lowerPath(rel), { throwIfNoEntry: false })
      const mode = lower?.isFile() ? lower.mode & 0o7777 : 0o644
      return { type: 'file', size: held.bytes.length, mtimeMs: held.mtimeMs, mode }
    }
    if (this.memory.dirs.has(rel)) return { type: 'dir', size: 0, mtimeMs: Date.now(), mode: 0o755 }
    if (this.diskType(rel) !== undefined) return this.upperOps.stat(this.upperPath(rel))
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
    const up = this.diskType(rel) === 'dir' ? await this.upperOps.walk(this.upperPath(rel), limit) : { entries: [], truncated: false }
    truncated ||= up.truncated
    for (const e of [...up.entries, ...this.memory.walk(rel)]) {
      // An upper non-folder hides whatever the lower layer has beneath that name.
      if (e.type !== 'dir' && merged.get(e.path) === 'dir') for (const k of merged.keys()) if (k.startsWith(e.path + '/')) merged.delete(k)
      merged.set(e.path, e.type)
    }
    const entries: WalkEntry[] = [...merged].map(([p, type]) => ({ path: p, type })).sort((a, b) => compareWalkPaths(a.path, b.path))
    if (entries.length > limit) return { entries: entries.slice(0, limit), truncated: true }
    return { entries, truncated }
  }

  exec = async (request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> => {
    // The command's overlay sees the upper folder: what memory holds goes there first.
    await this.materialise()
    // The command's writes land in the upper folder (the fold-back): look there from now on.
    this.onDisk = true
    this.forgetTree()
    // The fold-back may have replaced folders: forget what was known about them once it is done.
    return this.layers.exec(this, request, signal).finally(() => this.forgetTree())
  }

  /** What a command may have changed: the folders known, made and the digests. */
  private forgetTree(): void {
    this.knownDirs.clear()
    this.knownDirs.add('')
    this.upperDirs.clear()
    this.forgetDigests()
  }
}

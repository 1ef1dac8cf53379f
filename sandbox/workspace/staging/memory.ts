/**
 * The in-memory part of a staged view's upper layer: files the run wrote and folders it made, held as
 * bytes instead of new files in the stage folder. On this kind of disk every new inode is the expensive
 * step (ext4 journals each create), so a dry run creates none unless a `bash` command needs the view on
 * disk, and an atomic run creates each changed file once, at the end, right before its rename into place.
 *
 * An entry is either here or in the stage folder on disk, never both (the view keeps that): past the
 * byte budget, further writes go to the stage folder (a spill), and a `bash` command or an apply
 * materialises what is here first.
 */
import type { DirEntry, EntryType, WalkEntry } from '../ops.js'

/** Staged bytes held in memory before writes spill to the stage folder; `CODEACT_STAGE_MEMORY_BYTES` overrides. */
const DEFAULT_MEMORY_BUDGET = 64 * 1024 * 1024

export function memoryBudget(): number {
  const raw = process.env.CODEACT_STAGE_MEMORY_BYTES
  const n = raw === undefined ? Number.NaN : Number(raw)
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_MEMORY_BUDGET
}

export interface MemFile {
  bytes: Buffer
  /** Unix seconds · 1000 of the write, as a file's mtime would be. */
  mtimeMs: number
}

function parentOf(rel: string): string {
  const at = rel.lastIndexOf('/')
  return at === -1 ? '' : rel.slice(0, at)
}

function nameOf(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1)
}

export class MemoryLayer {
  readonly files = new Map<string, MemFile>()
  readonly dirs = new Set<string>()
  /** Folder → names of its entries held here (files and folders). */
  private readonly children = new Map<string, Set<string>>()
  private held = 0

  constructor(readonly budget: number) {}

  type(rel: string): EntryType | undefined {
    return this.files.has(rel) ? 'file' : this.dirs.has(rel) ? 'dir' : undefined
  }

  /** Whether `bytes` more would still fit, counting the entry at `rel` as replaced. */
  fits(rel: string, bytes: number): boolean {
    return this.held - (this.files.get(rel)?.bytes.length ?? 0) + bytes <= this.budget
  }

  private link(rel: string): void {
    const p = parentOf(rel)
    let set = this.children.get(p)
    if (!set) this.children.set(p, (set = new Set()))
    set.add(nameOf(rel))
  }

  private unlink(rel: string): void {
    const p = parentOf(rel)
    const set = this.children.get(p)
    set?.delete(nameOf(rel))
    if (set?.size === 0) this.children.delete(p)
  }

  setFile(rel: string, bytes: Buffer): void {
    this.held += bytes.length - (this.files.get(rel)?.bytes.length ?? 0)
    if (!this.files.has(rel)) this.link(rel)
    this.files.set(rel, { bytes, mtimeMs: Date.now() })
  }

  addDir(rel: string): void {
    if (rel === '' || this.dirs.has(rel)) return
    this.dirs.add(rel)
    this.link(rel)
  }

  /** Forgets `rel` and everything held beneath it. */
  removeTree(rel: string): void {
    const drop = (r: string): void => {
      const f = this.files.get(r)
      if (f) {
        this.held -= f.bytes.length
        this.files.delete(r)
        this.unlink(r)
      }
      if (this.dirs.delete(r)) this.unlink(r)
      for (const name of [...(this.children.get(r) ?? [])]) drop(r === '' ? name : `${r}/${name}`)
    }
    drop(rel)
  }

  /** The entries held directly in folder `rel`. */
  list(rel: string): DirEntry[] {
    const out: DirEntry[] = []
    for (const name of this.children.get(rel) ?? []) {
      const r = rel === '' ? name : `${rel}/${name}`
      const f = this.files.get(r)
      out.push(f ? { name, type: 'file', size: f.bytes.length } : { name, type: 'dir', size: 0 })
    }
    return out
  }

  /** Every entry held beneath folder `rel`, relative to it (its parents may be lower folders, not held here). */
  walk(rel: string): WalkEntry[] {
    const prefix = rel === '' ? '' : `${rel}/`
    const out: WalkEntry[] = []
    for (const d of this.dirs) if (d.startsWith(prefix)) out.push({ path: d.slice(prefix.length), type: 'dir' })
    for (const f of this.files.keys()) if (f.startsWith(prefix)) out.push({ path: f.slice(prefix.length), type: 'file' })
    return out
  }

  clear(): void {
    this.files.clear()
    this.dirs.clear()
    this.children.clear()
    this.held = 0
  }
}

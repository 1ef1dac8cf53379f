/**
 * What a staged view changed, compared with the real tree: every upper entry and every whited-out lower
 * entry, as `created` / `modified` / `deleted` (folders end in `/`). A file written back with the same
 * bytes is `unchanged`, not a change.
 */
import { lstatSync, readFileSync } from 'node:fs'
import { open, readdir, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { EntryType } from '../ops.js'
import { entryTypeOf, SMALL_BYTES } from '../beneath.js'
import { inPool } from './pool.js'
import type { MemoryLayer } from './memory.js'
import { compareWalkPaths, type StagedView } from './view.js'

export interface StagedChange {
  /** Workspace-relative, `/`-separated, no trailing slash. */
  rel: string
  change: 'created' | 'modified' | 'deleted'
  /** The entry's type in the new tree (deleted: in the old one). */
  kind: EntryType
  /** The type it had in the real tree, when it had one. */
  lowerKind?: EntryType
}

export interface StagedChangeSet {
  changes: StagedChange[]
  /** Files written back with the bytes they had. */
  unchanged: string[]
}

async function upperEntries(dir: string, prefix: string, out: { rel: string; kind: EntryType }[]): Promise<void> {
  const dirents = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const d of dirents) {
    const rel = prefix === '' ? d.name : `${prefix}/${d.name}`
    // Whiteouts (character devices a kernel overlay leaves), fifos, sockets: not workspace content.
    if (!d.isSymbolicLink() && !d.isFile() && !d.isDirectory()) continue
    const kind: EntryType = d.isSymbolicLink() ? 'symlink' : d.isFile() ? 'file' : 'dir'
    out.push({ rel, kind })
    if (kind === 'dir') await upperEntries(join(dir, d.name), rel, out)
  }
}

/** The real tree's entry type, whiteouts ignored. One synchronous lstat per staged entry. */
function realType(view: StagedView, rel: string): EntryType | undefined {
  try {
    const st = lstatSync(view.lowerPath(rel), { throwIfNoEntry: false })
    if (st === undefined) return undefined
    return entryTypeOf(st)
  } catch {
    return undefined
  }
}

/** A file's bytes: small ones synchronously. */
export async function bytesOf(path: string, size: number): Promise<Buffer> {
  return size <= SMALL_BYTES ? readFileSync(path) : readFile(path)
}

/** A larger pair is compared a chunk at a time: two chunks in memory, never the files whole. */
const COMPARE_CHUNK_BYTES = 1024 * 1024

/** Whether two files of `size` bytes each hold the same bytes; stops at the first chunk that differs. */
async function sameBytes(a: string, b: string, size: number): Promise<boolean> {
  if (size <= SMALL_BYTES) return readFileSync(a).equals(readFileSync(b))
  const [x, y] = await Promise.all([open(a, 'r'), open(b, 'r')])
  try {
    const bx = Buffer.allocUnsafe(COMPARE_CHUNK_BYTES)
    const by = Buffer.allocUnsafe(COMPARE_CHUNK_BYTES)
    for (let at = 0; at < size; at += COMPARE_CHUNK_BYTES) {
      const [rx, ry] = await Promise.all([x.read(bx, 0, COMPARE_CHUNK_BYTES, at), y.read(by, 0, COMPARE_CHUNK_BYTES, at)])
      if (rx.bytesRead !== ry.bytesRead || !bx.subarray(0, rx.bytesRead).equals(by.subarray(0, ry.bytesRead))) return false
      if (rx.bytesRead === 0) return true
    }
    return true
  } finally {
    await Promise.all([x.close(), y.close()])
  }
}

/**
 * `untouched`: a copy's entry as it was copied (same size and times; only a whole-copy stage has those),
 * `same`: rewritten with the bytes it had. A change hidden by forging the times is never applied either.
 */
async function compare(a: string, b: string, kind: EntryType, copy: boolean): Promise<'untouched' | 'same' | 'differs'> {
  try {
    if (kind === 'symlink') return (await readlink(a)) === (await readlink(b)) ? (copy ? 'untouched' : 'same') : 'differs'
    const x = lstatSync(a)
    const y = lstatSync(b)
    // A mode change (bash's `chmod +x`) is a change: compared before the copy's same-times shortcut, as
    // chmod leaves the mtime alone. (Staged writes give the upper copy the real file's mode: view.ts.)
    if (x.size !== y.size || (x.mode & 0o7777) !== (y.mode & 0o7777)) return 'differs'
    if (copy && x.mtimeMs === y.mtimeMs) return 'untouched'
    return (await sameBytes(a, b, x.size)) ? 'same' : 'differs'
  } catch {
    return 'differs'
  }
}

/** A file held in memory against the real file: compared by size, then bytes (no file of the stage is read). */
function compareHeld(memory: MemoryLayer, view: StagedView, rel: string): 'same' | 'differs' {
  try {
    const held = memory.files.get(rel)!.bytes
    const st = lstatSync(view.lowerPath(rel))
    if (st.size !== held.length) return 'differs'
    return readFileSync(view.lowerPath(rel)).equals(held) ? 'same' : 'differs'
  } catch {
    return 'differs'
  }
}

/** `copy`: the upper folder is a whole copy of the tree (a gVisor stage), not an overlay's upper layer. */
export async function stagedChanges(view: StagedView, copy = false): Promise<StagedChangeSet> {
  const byPath = new Map<string, StagedChange>()
  const unchanged: string[] = []
  const uppers: { rel: string; kind: EntryType }[] = []
  await upperEntries(view.upperRoot, '', uppers)
  const memory = view.memory
  for (const d of memory.dirs) uppers.push({ rel: d, kind: 'dir' })
  for (const f of memory.files.keys()) uppers.push({ rel: f, kind: 'file' })
  const inUpper = new Set(uppers.map((u) => u.rel))
  await inPool(uppers, 8, async ({ rel, kind }) => {
    let seen: 'untouched' | 'same' | 'differs'
    const lowerKind = realType(view, rel)
    if (lowerKind === undefined) {
      byPath.set(rel, { rel, change: 'created', kind })
    } else if (lowerKind === 'dir' && kind === 'dir') {
      return
    } else if (
      lowerKind === kind &&
      !(kind === 'file' && !copy && view.knownDifferent(rel)) &&
      (seen = memory.files.has(rel)
        ? compareHeld(memory, view, rel)
        : await compare(view.lowerPath(rel), view.upperPath(rel), kind, copy)) !== 'differs'
    ) {
      if (seen === 'same') unchanged.push(rel)
    } else {
      byPath.set(rel, { rel, change: 'modified', kind, lowerKind })
    }
  })
  for (const w of view.whiteouts) {
    const kind = realType(view, w)
    if (kind === undefined) continue
    const gone = [{ rel: w, kind }]
    if (kind === 'dir') {
      const walked = await view.layersLower().walk(view.lowerPath(w), Number.MAX_SAFE_INTEGER)
      for (const e of walked.entries) gone.push({ rel: `${w}/${e.path}`, kind: e.type })
    }
    for (const g of gone) {
      if (inUpper.has(g.rel) || byPath.has(g.rel)) continue
      byPath.set(g.rel, { rel: g.rel, change: 'deleted', kind: g.kind })
    }
  }
  const changes = [...byPath.values()].sort((a, b) => compareWalkPaths(a.rel, b.rel))
  return { changes, unchanged: unchanged.sort() }
}

/**
 * Applying a staged change set to the real tree, crash-safe: the plan is written (and fsynced) as a
 * journal in the stage folder before the first byte of the tree changes; each file lands by writing a
 * sibling temp file and renaming it over the old one, so a host killed at any moment leaves every file
 * either old or new. Every step is idempotent, so the next start finishes an interrupted apply from the
 * journal (`recoverStaging`), the staged bytes still being there.
 *
 * Each target's folder is re-resolved and checked beneath the root and outside the read-only parts right
 * before it is touched; a symlink is never followed at the final component (rename and unlink act on the
 * entry itself).
 */
import { constants, copyFileSync, existsSync, renameSync, rmSync } from 'node:fs'
import { copyFile, lstat, mkdir, open, readFile, readlink, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { isWithin } from '../paths.js'
import { WorkspaceError } from '../ops.js'
import type { StagedChange } from './staged-changes.js'

export const JOURNAL = 'journal.json'

export interface Journal {
  version: 1
  root: string
  readOnly: string[]
  /** The stage's upper folder, holding the new bytes. */
  upper: string
  pid: number
  startedAt: string
  changes: StagedChange[]
}

/** Writes the journal durably (temp, fsync, rename): from here on the apply can always be finished. */
export async function writeJournal(stageDir: string, journal: Journal): Promise<void> {
  const temp = join(stageDir, `${JOURNAL}.tmp`)
  const fh = await open(temp, 'w', 0o600)
  try {
    await fh.writeFile(JSON.stringify(journal))
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(temp, join(stageDir, JOURNAL))
}

function depth(rel: string): number {
  return rel.split('/').length
}

const TEMP_MARK = '.codeact-apply-'

/** Checked folders of one apply (parent rel → real path): files in one folder check it once. */
const checkedDirs = new WeakMap<Journal, Map<string, Promise<string | undefined>>>()

/** The real folder that will hold `rel`, checked; created (as folders, checked level by level) when asked. */
async function targetDir(journal: Journal, rel: string, create: boolean): Promise<string | undefined> {
  const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
  if (!create) return resolveDir(journal, rel, parentRel, false)
  let cache = checkedDirs.get(journal)
  if (!cache) checkedDirs.set(journal, (cache = new Map()))
  let hit = cache.get(parentRel)
  if (!hit) {
    hit = resolveDir(journal, rel, parentRel, true)
    cache.set(parentRel, hit)
    hit.catch(() => cache.delete(parentRel))
  }
  const real = await hit
  if (real !== undefined && journal.readOnly.some((ro) => isWithin(join(real, basename(rel)), ro))) throw new WorkspaceError('EROFS', `${rel} is read-only; not applied`)
  return real
}

async function resolveDir(journal: Journal, rel: string, parentRel: string, create: boolean): Promise<string | undefined> {
  let cur = journal.root
  for (const part of parentRel === '' ? [] : parentRel.split('/')) {
    const next = join(cur, part)
    let st = await lstat(next).catch(() => undefined)
    if (st === undefined) {
      if (!create) return undefined
      await mkdir(next).catch((err: { code?: string }) => {
        if (err.code !== 'EEXIST') throw err
      })
      st = await lstat(next)
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(next)
      if (!isWithin(real, journal.root)) throw new WorkspaceError('EACCES', `${next} leads outside the workspace; not applied`)
      cur = real
    } else if (st.isDirectory()) cur = next
    else throw new WorkspaceError('ENOTDIR', `${next} is not a folder; not applied`)
  }
  const real = await realpath(cur)
  if (!isWithin(real, journal.root)) throw new WorkspaceError('EACCES', `${cur} leads outside the workspace; not applied`)
  const target = join(real, basename(rel))
  if (journal.readOnly.some((ro) => isWithin(target, ro))) throw new WorkspaceError('EROFS', `${rel} is read-only; not applied`)
  return real
}

async function removeEntry(journal: Journal, rel: string): Promise<void> {
  const dir = await targetDir(journal, rel, false)
  if (dir === undefined) return
  const target = join(dir, basename(rel))
  const st = await lstat(target).catch(() => undefined)
  if (st === undefined) return
  if (st.isDirectory()) await rm(target, { recursive: true, force: true })
  else await unlink(target).catch((err: { code?: string }) => {
    if (err.code !== 'ENOENT') throw err
  })
}

async function placeEntry(journal: Journal, c: StagedChange): Promise<void> {
  const dir = (await targetDir(journal, c.rel, true))!
  const target = join(dir, basename(c.rel))
  const source = join(journal.upper, c.rel)
  if (c.kind === 'dir') {
    await mkdir(target).catch((err: { code?: string }) => {
      if (err.code !== 'EEXIST') throw err
    })
    return
  }
  const temp = join(dir, `.${basename(c.rel)}${TEMP_MARK}${journal.pid}`)
  if (c.kind === 'symlink') {
    await rm(temp, { force: true })
    await symlink(await readlink(source), temp)
    await rename(temp, target)
    return
  }
  // Synchronous on purpose: a syscall or three per file, where a thread-pool round trip each costs more
  // than the work on a loaded machine; the caller yields to the event loop between small chunks.
  // Same file system: the staged file itself is renamed into place (atomic, no second write). Once it
  // is gone from the stage, it was moved — a journal replayed after a kill skips it.
  try {
    renameSync(source, target)
    return
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === 'ENOENT' && !existsSync(source)) return
    if (code !== 'EXDEV') throw err
  }
  try {
    // The staged copy carries the mode (kept from the old file when it was staged).
    copyFileSync(source, temp, constants.COPYFILE_EXCL)
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err
    // A temp left by a killed apply of this same journal.
    rmSync(temp, { force: true })
    copyFileSync(source, temp, constants.COPYFILE_EXCL)
  }
  renameSync(temp, target)
}

/**
 * Carries out the journal: removals (deepest first, and entries whose type changes), then folders
 * (shallowest first), then files and symlinks. Safe to run again on a half-applied tree.
 */
export async function applyJournal(journal: Journal, onStep?: (done: number, total: number) => void): Promise<void> {
  const removals = journal.changes
    .filter((c) => c.change === 'deleted' || (c.change === 'modified' && c.lowerKind !== undefined && c.lowerKind !== c.kind))
    .sort((a, b) => depth(b.rel) - depth(a.rel))
  const dirs = journal.changes.filter((c) => c.change !== 'deleted' && c.kind === 'dir').sort((a, b) => depth(a.rel) - depth(b.rel))
  const files = journal.changes.filter((c) => c.change !== 'deleted' && c.kind !== 'dir')
  const total = removals.length + dirs.length + files.length
  let done = 0
  for (const c of removals) {
    await removeEntry(journal, c.rel)
    onStep?.(++done, total)
  }
  for (const c of dirs) {
    await placeEntry(journal, c)
    onStep?.(++done, total)
  }
  // Files are independent of each other (their folders exist by now), in small chunks between which
  // other work on the event loop gets its turn.
  for (let i = 0; i < files.length; i += CHUNK) {
    await Promise.all(files.slice(i, i + CHUNK).map(async (c) => {
      await placeEntry(journal, c)
      onStep?.(++done, total)
    }))
    await new Promise((r) => setImmediate(r))
  }
}

const CHUNK = 64

/** Runs `each` over `items`, `width` at a time (fs calls overlap on libuv's pool). */
export async function inPool<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane))
}

/** The journal left in a stage folder, if any. */
export async function readJournal(stageDir: string): Promise<Journal | undefined> {
  try {
    const j = JSON.parse(await readFile(join(stageDir, JOURNAL), 'utf8')) as Journal
    return j.version === 1 && Array.isArray(j.changes) ? j : undefined
  } catch {
    return undefined
  }
}

/** Leaves a marker that the apply is complete (before the stage folder is removed). */
export async function markDone(stageDir: string): Promise<void> {
  await writeFile(join(stageDir, 'done'), '')
}

export function isApplyTemp(name: string): boolean {
  return name.startsWith('.') && name.includes(TEMP_MARK)
}

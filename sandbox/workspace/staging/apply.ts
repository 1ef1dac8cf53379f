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
import { constants } from 'node:fs'
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

/** The real folder that will hold `rel`, checked; created (as folders, checked level by level) when asked. */
async function targetDir(journal: Journal, rel: string, create: boolean): Promise<string | undefined> {
  const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
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
  await rm(temp, { force: true })
  if (c.kind === 'symlink') await symlink(await readlink(source), temp)
  else {
    await copyFile(source, temp, constants.COPYFILE_EXCL)
    // A modified file keeps the mode it had (the staged copy was created with the default one).
    const old = await lstat(target).catch(() => undefined)
    if (old?.isFile()) {
      const fh = await open(temp, constants.O_WRONLY | constants.O_NOFOLLOW)
      await fh.chmod(old.mode & 0o7777).finally(() => fh.close())
    }
  }
  await rename(temp, target)
}

/**
 * Carries out the journal: removals (deepest first, and entries whose type changes), then folders
 * (shallowest first), then files and symlinks. Safe to run again on a half-applied tree.
 */
export async function applyJournal(journal: Journal, onStep?: (done: number, total: number) => void): Promise<void> {
  const removals = journal.changes
    .filter((c) => c.change === 'deleted' || (c.change === 'modified' && c.lowerKind !== undefined && c.lowerKind !== c.kind))
    .sort((a, b) => depth(b.rel) - depth(a.rel))
  const placements = journal.changes.filter((c) => c.change !== 'deleted').sort((a, b) => (a.kind === 'dir' ? 0 : 1) - (b.kind === 'dir' ? 0 : 1) || depth(a.rel) - depth(b.rel))
  const total = removals.length + placements.length
  let done = 0
  for (const c of removals) {
    await removeEntry(journal, c.rel)
    onStep?.(++done, total)
  }
  for (const c of placements) {
    await placeEntry(journal, c)
    onStep?.(++done, total)
  }
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

/**
 * Applying a staged change set to the real tree, crash-safe: the plan is written (and fsynced) as a
 * journal in the stage folder before the first byte of the tree changes; each file lands by writing a
 * sibling temp file and renaming it over the old one, so a host killed at any moment leaves every file
 * either old or new. Every step is idempotent, so the next start finishes an interrupted apply from the
 * journal (`recoverStaging`), the staged bytes still being there.
 *
 * Every target is reached through the workspace's descriptor-safe walk (sandbox/workspace/beneath.ts):
 * its folder opened component by component beneath the root, never through a symlink, and the entry
 * named through that descriptor; read-only parts are refused (EROFS) before anything is touched.
 */
import { constants, copyFileSync, existsSync, renameSync, rmSync } from 'node:fs'
import { open, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { closeDir, entryPath, openDirBeneath, type DirRef } from '../beneath.js'
import { mkdirBeneath, removeBeneath } from '../beneath-files.js'
import { join } from 'node:path'
import { isWithin } from '../paths.js'
import { WorkspaceError } from '../ops.js'
import { type Journal, signedJournal } from './journal-check.js'
import type { StagedChange } from './staged-changes.js'

export const JOURNAL = 'journal.json'

/**
 * Writes the journal durably (temp, fsync, rename), signed with the state key (journal-check.ts): from
 * here on the apply can always be finished, and only a journal written here is ever carried out.
 */
export async function writeJournal(stageDir: string, journal: Journal, key: Buffer): Promise<void> {
  const temp = join(stageDir, `${JOURNAL}.tmp`)
  const fh = await open(temp, 'w', 0o600)
  try {
    await fh.writeFile(signedJournal(stageDir, journal, key))
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

/** Folders of one apply held open by descriptor (parent rel → DirRef): files in one folder open it once. */
const openDirs = new WeakMap<Journal, Map<string, DirRef>>()
const MAX_OPEN_DIRS = 256

function parentParts(rel: string): { parts: string[]; name: string } {
  const parts = rel.split('/')
  const name = parts.pop()!
  return { parts, name }
}

function checkWritable(journal: Journal, rel: string): void {
  const abs = join(journal.root, rel)
  if (journal.readOnly.some((ro) => isWithin(abs, ro) || isWithin(ro, abs)))
    throw new WorkspaceError('EROFS', `${rel} is or holds a read-only path; not applied`)
}

/**
 * The folder that holds `rel`, opened beneath the root component by component (O_NOFOLLOW|O_DIRECTORY
 * through each parent's descriptor, created where missing): a folder swapped for a symlink is refused.
 */
function parentDir(journal: Journal, rel: string): { dir: DirRef; name: string } {
  const { parts, name } = parentParts(rel)
  const key = parts.join('/')
  let cache = openDirs.get(journal)
  if (!cache) openDirs.set(journal, (cache = new Map()))
  let dir = cache.get(key)
  if (!dir) {
    if (cache.size >= MAX_OPEN_DIRS) closeAll(journal)
    dir = openDirBeneath(journal.root, parts, true)
    openDirs.get(journal)!.set(key, dir)
  }
  return { dir, name }
}

function closeAll(journal: Journal): void {
  for (const d of openDirs.get(journal)?.values() ?? []) closeDir(d)
  openDirs.delete(journal)
}

async function removeEntry(journal: Journal, rel: string): Promise<void> {
  checkWritable(journal, rel)
  await removeBeneath(journal.root, rel, true).catch((err: { code?: string }) => {
    if (err.code !== 'ENOENT') throw err
  })
}

async function placeEntry(journal: Journal, c: StagedChange): Promise<void> {
  checkWritable(journal, c.rel)
  if (c.kind === 'dir') return mkdirBeneath(journal.root, c.rel)
  const source = join(journal.upper, c.rel)
  const { dir, name } = parentDir(journal, c.rel)
  const target = entryPath(dir, name)
  const temp = entryPath(dir, `.${name}${TEMP_MARK}${journal.pid}`)
  if (c.kind === 'symlink') {
    await rm(temp, { force: true })
    await symlink(await readlink(source), temp)
    await rename(temp, target)
    return
  }
  // Same file system: the staged file itself is renamed into place (atomic, no second write). Once it
  // is gone from the stage, it was moved — a journal replayed after a kill skips it. The rename goes
  // through the thread pool: it changes two folders (a journal write each), and a chunk's renames overlap.
  try {
    await rename(source, target)
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
  try {
    for (let i = 0; i < files.length; i += CHUNK) {
      await Promise.all(
        files.slice(i, i + CHUNK).map(async (c) => {
          await placeEntry(journal, c)
          onStep?.(++done, total)
        }),
      )
      await new Promise((r) => setImmediate(r))
    }
  } finally {
    closeAll(journal)
  }
}

const CHUNK = 64

/** Leaves a marker that the apply is complete (before the stage folder is removed). */
export async function markDone(stageDir: string): Promise<void> {
  await writeFile(join(stageDir, 'done'), '')
}

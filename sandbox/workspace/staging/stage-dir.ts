/**
 * Where stages live: `<state folder>/stage/<hash of the workspace root>/<stage id>/` (vocabulary/state-folder.ts:
 * never inside a workspace), so neither the program nor its `bash` sees them, and durable, so the next
 * start finds an interrupted apply (a reboot included).
 */
import { createHash, randomUUID } from 'node:crypto'
import { lstatSync, mkdirSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { privateFolder, stateKey } from '../../../vocabulary/state-folder.js'
import { WorkspaceError } from '../ops.js'
import { applyJournal, JOURNAL } from './apply.js'
import { checkedJournal } from './journal-check.js'

export function stagesOf(state: string, root: string): string {
  return join(state, 'stage', createHash('sha256').update(root).digest('hex').slice(0, 16))
}

/** The workspace's stages folder, made private, in a state folder that is private too. */
function privateStages(state: string, root: string): ReturnType<typeof privateFolder> {
  const folder = privateFolder(state)
  return folder.ok ? privateFolder(stagesOf(state, root)) : folder
}

export interface Stage {
  id: string
  dir: string
  upper: string
  /** Scratch for the kernel overlay's workdir (same file system as `upper`). */
  work: string
  remove(): Promise<void>
}

export async function createStage(state: string, root: string): Promise<Stage> {
  const id = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`
  const base = privateStages(state, root)
  if (!base.ok) throw new WorkspaceError('EACCES', `cannot stage the run: ${base.message}`)
  const dir = join(base.value, id)
  const upper = join(dir, 'upper')
  const work = join(dir, 'work')
  mkdirSync(upper, { recursive: true, mode: 0o700 })
  await mkdir(work, { mode: 0o700 })
  await writeFile(join(dir, 'owner'), String(process.pid))
  return { id, dir, upper, work, remove: () => rm(dir, { recursive: true, force: true, maxRetries: 3 }) }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'
  }
}

export interface Recovered {
  stage: string
  /**
   * `finished`: an interrupted apply was completed from its journal; `discarded`: an unfinished run's stage
   * was removed; `refused`: a journal this run will not carry out (`reason`), left where it is, never applied.
   */
  action: 'finished' | 'discarded' | 'refused'
  changes: number
  reason?: string
}

/**
 * Run at start-up for a workspace: finishes every apply a killed host left half done (rolling forward
 * from the journal, so each file ends new), and removes stages of runs that died before applying (their
 * tree was never touched). Stages of live processes are left alone; a journal codeact did not write, or
 * one that reaches outside its stage or into this run's read-only paths, is refused (journal-check.ts).
 */
export async function recoverStaging(state: string, root: string, readOnly: readonly string[]): Promise<Recovered[]> {
  const base = stagesOf(state, root)
  const st = lstatSync(base, { throwIfNoEntry: false })
  if (st === undefined) return []
  const folder = privateStages(state, root)
  if (!folder.ok) return [refused(base, folder.message)]
  const out: Recovered[] = []
  for (const id of await readdir(base).catch(() => [] as string[])) {
    const r = await recoverOne(state, join(base, id), root, readOnly)
    if (r) out.push(r)
  }
  return out
}

function refused(stage: string, reason: string): Recovered {
  return { stage, action: 'refused', changes: 0, reason }
}

async function recoverOne(state: string, dir: string, root: string, readOnly: readonly string[]): Promise<Recovered | undefined> {
  if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true)
    return refused(dir, 'it is not a stage folder (a symlink or a file)')
  const owner = Number(await readFile(join(dir, 'owner'), 'utf8').catch(() => 'NaN'))
  if (owner === process.pid || (Number.isInteger(owner) && alive(owner))) return undefined
  const done = lstatSync(join(dir, 'done'), { throwIfNoEntry: false }) !== undefined
  let out: Recovered | undefined
  if (!done) {
    const key = stateKey(state)
    if (!key.ok) return refused(dir, key.message)
    const check = checkedJournal(dir, join(dir, JOURNAL), key.value, root, readOnly)
    if (check?.ok === false) return refused(dir, check.why)
    if (check?.ok) await applyJournal(check.journal)
    out = { stage: dir, action: check ? 'finished' : 'discarded', changes: check?.ok ? check.journal.changes.length : 0 }
  }
  await rm(dir, { recursive: true, force: true })
  return out
}

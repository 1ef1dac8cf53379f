/**
 * Where stages live: `$CODEACT_STATE_DIR` (default `$XDG_STATE_HOME/codeact`, else `~/.local/state/codeact`)
 * `/stage/<hash of the workspace root>/<stage id>/`, outside the workspace, so neither the program nor its
 * `bash` sees them, and durable, so the next start finds an interrupted apply (a reboot included).
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { mkdir, readdir, rm, writeFile, readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { applyJournal, readJournal } from './apply.js'

export function stateDir(): string {
  if (process.env.CODEACT_STATE_DIR) return process.env.CODEACT_STATE_DIR
  const xdg = process.env.XDG_STATE_HOME
  return join(xdg?.startsWith('/') ? xdg : join(homedir(), '.local', 'state'), 'codeact')
}

export function stagesOf(root: string): string {
  return join(stateDir(), 'stage', createHash('sha256').update(root).digest('hex').slice(0, 16))
}

export interface Stage {
  id: string
  dir: string
  upper: string
  /** Scratch for the kernel overlay's workdir (same file system as `upper`). */
  work: string
  remove(): Promise<void>
}

export async function createStage(root: string): Promise<Stage> {
  const id = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`
  const dir = join(stagesOf(root), id)
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
  /** `finished`: an interrupted apply was completed from its journal; `discarded`: an unfinished run's stage was removed. */
  action: 'finished' | 'discarded'
  changes: number
}

/**
 * Run at start-up for a workspace: finishes every apply a killed host left half done (rolling forward
 * from the journal, so each file ends new), and removes stages of runs that died before applying (their
 * tree was never touched). Stages of live processes are left alone.
 */
export async function recoverStaging(root: string): Promise<Recovered[]> {
  const base = stagesOf(root)
  const out: Recovered[] = []
  const ids = await readdir(base).catch(() => [] as string[])
  for (const id of ids) {
    const dir = join(base, id)
    const owner = Number(await readFile(join(dir, 'owner'), 'utf8').catch(() => 'NaN'))
    if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) continue
    if (owner === process.pid) continue
    const journal = await readJournal(dir)
    const done = await readFile(join(dir, 'done')).then(
      () => true,
      () => false,
    )
    if (journal && journal.root === root && !done) {
      await applyJournal(journal)
      out.push({ stage: dir, action: 'finished', changes: journal.changes.length })
    } else if (!done) {
      out.push({ stage: dir, action: 'discarded', changes: 0 })
    }
    await rm(dir, { recursive: true, force: true })
  }
  return out
}

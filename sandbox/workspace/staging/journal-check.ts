/**
 * What a recovery may believe of a journal it finds: only a journal this user's codeact wrote (an HMAC with
 * the state key over the stage's name and the text), and of that only the list of changes. The folder the
 * new bytes come from is the stage folder the journal lies in, never a path of the journal's; every entry
 * is a plain relative path whose folders in the stage are real folders (no `..`, no symlink followed); the
 * read-only paths are the recovering run's. A journal that fails any of this is refused whole.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { macOf, sameMac } from '../../../vocabulary/state-folder.js'
import { isWithin } from '../paths.js'
import type { StagedChange } from './staged-changes.js'

const FORMAT = 'codeact-journal-2'
const PURPOSE = 'codeact staging journal'

const MAC_TAIL = /,"mac":"([0-9a-f]{64})"\}\n?$/

/**
 * An apply's plan. Written to disk are only `root`, `pid`, `startedAt` and `changes` (signed); a recovery
 * takes `upper` from the stage folder it found the journal in and `readOnly` from the run recovering it.
 */
export interface Journal {
  root: string
  readOnly: string[]
  /** The stage's upper folder, holding the new bytes. */
  upper: string
  pid: number
  startedAt: string
  changes: StagedChange[]
}

/**
 * The journal file's text: one JSON object, the plan (without its source folder or read-only list), whose
 * last field `mac` signs the text before it with the stage's name.
 */
export function signedJournal(stageDir: string, j: Journal, key: Buffer): string {
  const body = JSON.stringify({ format: FORMAT, root: j.root, pid: j.pid, startedAt: j.startedAt, changes: j.changes })
  return `${body.slice(0, -1)},"mac":"${macOf(key, PURPOSE, basename(stageDir), body)}"}\n`
}

export type JournalCheck = { ok: true; journal: Journal } | { ok: false; why: string }

/**
 * The journal in `stageDir` as this run may carry it out, or why not; undefined when there is none.
 * `root` and `readOnly` are the recovering run's.
 */
export function checkedJournal(
  stageDir: string,
  file: string,
  key: Buffer,
  root: string,
  readOnly: readonly string[],
): JournalCheck | undefined {
  const text = readPlain(file)
  if (text === undefined) return undefined
  if (typeof text !== 'string') return text
  const m = MAC_TAIL.exec(text)
  if (!m) return { ok: false, why: 'it carries no MAC (it was not written by this codeact, or by one from before journals were signed)' }
  const body = `${text.slice(0, m.index)}}`
  if (!sameMac(m[1]!, macOf(key, PURPOSE, basename(stageDir), body)))
    return { ok: false, why: "its MAC does not match this user's key (it was written or changed by something else)" }
  let plan: { format?: unknown; root?: unknown; pid?: unknown; startedAt?: unknown; changes?: unknown }
  try {
    plan = JSON.parse(body) as typeof plan
  } catch {
    return { ok: false, why: 'it is not JSON' }
  }
  if (plan.format !== FORMAT || !Array.isArray(plan.changes)) return { ok: false, why: 'it is not a journal of this version' }
  if (plan.root !== root) return { ok: false, why: `it names another workspace (${String(plan.root)})` }
  const upper = join(stageDir, 'upper')
  for (const c of plan.changes) {
    const why = entryProblem(c) ?? sourceProblem(upper, c as StagedChange) ?? readOnlyProblem(root, readOnly, c as StagedChange)
    if (why) return { ok: false, why }
  }
  return {
    ok: true,
    journal: {
      root,
      readOnly: [...readOnly],
      upper,
      pid: typeof plan.pid === 'number' ? plan.pid : 0,
      startedAt: String(plan.startedAt),
      changes: plan.changes as StagedChange[],
    },
  }
}

/** The file's text when it is a regular file (not a link); a refusal when it is something else. */
function readPlain(file: string): string | { ok: false; why: string } | undefined {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    const code = (e as { code?: string }).code
    return code === 'ENOENT' ? undefined : { ok: false, why: `it cannot be opened as a plain file (${code})` }
  }
  try {
    if (!fstatSync(fd).isFile()) return { ok: false, why: 'it is not a regular file' }
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

const KINDS = new Set(['file', 'dir', 'symlink'])
const CHANGES = new Set(['created', 'modified', 'deleted'])

function entryProblem(c: unknown): string | undefined {
  const e = c as Partial<StagedChange> | null
  if (typeof e !== 'object' || e === null || typeof e.rel !== 'string') return 'an entry has no path'
  if (!CHANGES.has(String(e.change)) || !KINDS.has(String(e.kind)) || (e.lowerKind !== undefined && !KINDS.has(String(e.lowerKind))))
    return `the entry ${JSON.stringify(e.rel)} is not a change codeact makes`
  const parts = e.rel.split('/')
  if (e.rel.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..'))
    return `the entry ${JSON.stringify(e.rel)} is not a plain relative path (empty, '.', '..' or absolute)`
  return undefined
}

/** The entry's folders in the stage are real folders, and the entry (if still there) has its kind. */
function sourceProblem(upper: string, c: StagedChange): string | undefined {
  if (c.change === 'deleted' || c.kind === 'dir') return undefined
  const parts = c.rel.split('/')
  for (let i = 1; i <= parts.length; i++) {
    const at = join(upper, ...parts.slice(0, i))
    const st = lstatSync(at, { throwIfNoEntry: false })
    if (st === undefined) return undefined // already moved into the tree by the apply that was interrupted
    const last = i === parts.length
    if (!last && !st.isDirectory()) return `the stage's ${parts.slice(0, i).join('/')} is not a folder (a symlink is never followed)`
    if (last && (c.kind === 'file' ? !st.isFile() : !st.isSymbolicLink()))
      return `the stage's ${c.rel} is not the ${c.kind} the journal says`
  }
  return undefined
}

function readOnlyProblem(root: string, readOnly: readonly string[], c: StagedChange): string | undefined {
  const abs = join(root, c.rel)
  return readOnly.some((ro) => isWithin(abs, ro) || isWithin(ro, abs))
    ? `the entry ${c.rel} is or holds a path this run keeps read-only`
    : undefined
}

/**
 * A run's workspace changes, from start to finish. A direct run (`apply`) tracks what its tools and
 * commands changed in the real tree; an `atomic` or `dry-run` run works on a staged view (its tools get
 * the view as their ops) and at the end the view is applied all at once (atomic, ended ok), offered for
 * review, or thrown away — so a failed, timed-out, killed or cancelled atomic run leaves the tree as it was.
 */
import { lstatSync } from 'node:fs'
import { readlink } from 'node:fs/promises'
import type { StagedRun } from '../../sandbox/types.js'
import { WorkspaceError, type ExecRequest, type ExecResult, type WorkspaceConfig, type WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { copyRemovals, overlayRemovals } from '../../sandbox/workspace/staging/overlay-upper.js'
import { applyJournal, markDone, writeJournal } from '../../sandbox/workspace/staging/apply.js'
import { inPool } from '../../sandbox/workspace/staging/pool.js'
import { createStage, type Stage } from '../../sandbox/workspace/staging/stage-dir.js'
import { stagedChanges, type StagedChange } from '../../sandbox/workspace/staging/staged-changes.js'
import { ChangeTracker } from '../../sandbox/workspace/staging/tracker.js'
import { StagedView } from '../../sandbox/workspace/staging/view.js'
import type { ChangeMode, ChangeOutcome, FileChange } from '../../vocabulary/types.js'
import { join } from 'node:path'
import { isWithin } from '../../sandbox/workspace/paths.js'
import { stateKey } from '../../vocabulary/state-folder.js'
import { DEFAULT_LIMITS } from '../limits.js'
import { unifiedDiff } from './diff.js'
import { DiffReads, type Side } from './diff-reads.js'

export type ReviewAnswer = 'apply' | 'skip' | 'all' | 'quit'
/** Asked once per change of an atomic run that ended ok; `all` applies this and every later one, `quit` none. */
export type ReviewChange = (change: FileChange & { diff: string }, index: number, total: number) => Promise<ReviewAnswer>

export interface WorkspaceRunEnv {
  config: WorkspaceConfig
  /** codeact's state folder (never inside the workspace): stages and their journals live there. */
  stateDir: string
  /** The ops the run's tools would use without staging (the backend's for this run, else the host's). */
  baseOps(runId: string): WorkspaceOps
  /** Runs `bash` on a staged view (an overlay), or refuses with EPERM saying why. */
  stagedExec(view: StagedView, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult>
  /**
   * The backend stages the run itself (Docker: its container's workspace is an overlay whose upper layer
   * is the stage): the run's ops are the backend's, the stage is read back when the run has settled.
   */
  stageRun?(runId: string, stage: { upper: string; work: string }): StagedRun | string
  /** The host's ops on the real tree (reading the lower layer of a backend-staged run). */
  hostOps?: WorkspaceOps
  /** The program itself writes the real tree (Docker: node:fs on the mount): compare the whole tree. */
  programWrites?: boolean
}

export interface FinishedChanges {
  changes: FileChange[]
  applied: ChangeOutcome
  /** Files the run read or rewrote without changing them. */
  unchanged: string[]
  /** Why an apply stopped, if it did. */
  applyError?: string
  /** Why an atomic run that ended ok applied nothing, if it did not. */
  refused?: string
}

export interface RunChanges {
  /** The ops the run's workspace tools use. */
  ops: WorkspaceOps
  finish(ok: boolean, review?: ReviewChange): Promise<FinishedChanges>
}

function asFileChange(c: { rel: string; change: FileChange['change']; kind: string }): FileChange {
  return { path: c.kind === 'dir' ? `${c.rel}/` : c.rel, change: c.change }
}

async function diffOf(view: StagedView, c: StagedChange, reads: DiffReads): Promise<string> {
  if (c.kind === 'dir') return `${c.change === 'deleted' ? 'deleted' : 'new'} folder ${c.rel}/\n`
  if (c.kind === 'symlink') {
    const target = await readlink(c.change === 'deleted' ? view.lowerPath(c.rel) : view.upperPath(c.rel)).catch(() => '?')
    return `${c.change} symlink ${c.rel} -> ${target}\n`
  }
  const none: Side = { bytes: undefined }
  const before =
    c.change === 'created' || (c.lowerKind !== undefined && c.lowerKind !== 'file') ? none : await reads.read(view.lowerPath(c.rel))
  const held = view.memory.files.get(c.rel)?.bytes
  const after = c.change === 'deleted' ? none : held ? reads.held(held) : await reads.read(view.upperPath(c.rel))
  if ('skipped' in before || 'skipped' in after)
    return (
      modeLines(view, c) +
      reads.summary(c.change === 'created' ? '/dev/null' : `a/${c.rel}`, c.change === 'deleted' ? '/dev/null' : `b/${c.rel}`, before, after)
    )
  return modeLines(view, c) + unifiedDiff(c.rel, before.bytes, after.bytes)
}

/** git's `old mode` / `new mode` lines for a file whose mode changed (a chmod in bash); '' otherwise. */
function modeLines(view: StagedView, c: StagedChange): string {
  if (c.change !== 'modified' || c.kind !== 'file' || c.lowerKind !== 'file') return ''
  const mode = (path: string): number | undefined => lstatSync(path, { throwIfNoEntry: false })?.mode
  const [from, to] = [mode(view.lowerPath(c.rel)), mode(view.upperPath(c.rel))]
  return from === undefined || to === undefined || from === to ? '' : `old mode ${from.toString(8)}\nnew mode ${to.toString(8)}\n`
}

/** `maxDiffBytes`: what the diffs of a dry run or a review may read (diff-reads.ts, --max-diff-bytes). */
export async function startRunChanges(
  env: WorkspaceRunEnv,
  mode: ChangeMode,
  runId: string,
  maxDiffBytes = DEFAULT_LIMITS.maxDiffBytes,
): Promise<RunChanges> {
  const base = env.baseOps(runId)
  if (mode === 'apply') {
    const tracker = new ChangeTracker(env.config.root, base, { wholeRun: env.programWrites === true })
    await tracker.ready()
    return {
      ops: tracker.ops,
      finish: async () => {
        const { changes, unchanged } = await tracker.changes()
        const changed = new Set(changes.map((c) => c.rel))
        const read = [...tracker.read].filter((r) => !changed.has(r))
        return { changes: changes.map(asFileChange), applied: 'applied', unchanged: [...new Set([...unchanged, ...read])].sort() }
      },
    }
  }
  const stage = await createStage(env.stateDir, env.config.root)
  const read = new Set<string>()
  if (env.stageRun) return backendStaged(env, mode, runId, base, stage, read, maxDiffBytes)
  const view = new StagedView({ config: env.config, lower: base, upper: stage.upper, exec: env.stagedExec })
  const ops = noteReads(view, view, read)
  return { ops, finish: (ok, review) => finishStaged(env, mode, stage, view, read, ok, review, new DiffReads(maxDiffBytes)) }
}

/**
 * A run the backend stages (Docker): its ops are the backend's own (the container's view is the overlay);
 * at the end, once nothing of the run can write the stage, the upper layer is read back into a view —
 * its removals from the overlay's marks — and diffed, applied or discarded like any staged run.
 */
async function backendStaged(
  env: WorkspaceRunEnv,
  mode: ChangeMode,
  runId: string,
  base: WorkspaceOps,
  stage: Stage,
  read: Set<string>,
  maxDiffBytes: number,
): Promise<RunChanges> {
  const handle = env.stageRun!(runId, stage)
  if (typeof handle === 'string') {
    await stage.remove()
    throw new WorkspaceError('EPERM', `this backend cannot stage the run: ${handle}; nothing ran (it is never run on the real tree)`)
  }
  const refuse = (): Promise<ExecResult> => Promise.reject(new WorkspaceError('EPERM', 'the stage is read back, not run in'))
  const view = new StagedView({ config: env.config, lower: env.hostOps ?? base, upper: stage.upper, exec: refuse })
  return {
    ops: noteReads(base, view, read),
    finish: async (ok, review) => {
      handle.cancel()
      if (!(await handle.settled())) {
        // The overlay may still be mounted (its container could not be removed): nothing is read or applied.
        removeLater(stage)
        return {
          changes: [],
          applied: mode === 'dry-run' ? 'dry-run' : 'discarded',
          unchanged: [],
          refused: 'the staged container could not be confirmed gone, so its stage was not read; nothing was applied',
        }
      }
      const copy = handle.readBack === 'copy'
      const removed = await (copy ? copyRemovals : overlayRemovals)(stage.upper, env.config.root)
      for (const w of removed) view.whiteouts.add(w)
      return finishStaged(env, mode, stage, view, read, ok, review, new DiffReads(maxDiffBytes), copy)
    },
  }
}

async function finishStaged(
  env: WorkspaceRunEnv,
  mode: ChangeMode,
  stage: Stage,
  view: StagedView,
  read: Set<string>,
  ok: boolean,
  review: ReviewChange | undefined,
  reads: DiffReads,
  copy = false,
): Promise<FinishedChanges> {
  let keepStage = false
  try {
    const set = await stagedChanges(view, copy)
    const changed = new Set(set.changes.map((c) => c.rel))
    const unchanged = [...new Set([...set.unchanged, ...[...read].filter((r) => !changed.has(r))])].sort()
    const withDiffs = mode === 'dry-run' || (review !== undefined && ok)
    const listed: FileChange[] = set.changes.map(asFileChange)
    if (withDiffs)
      await inPool(
        set.changes.map((c, i) => [c, i] as const),
        8,
        async ([c, i]) => void (listed[i]!.diff = await diffOf(view, c, reads)),
      )
    if (mode === 'dry-run') return { changes: listed, applied: 'dry-run', unchanged }
    if (!ok) return { changes: listed.map(({ diff: _d, ...c }) => c), applied: 'discarded', unchanged }
    const accepted = review ? await reviewed(set.changes, listed, review) : set.changes
    const acceptedPaths = new Set(accepted.map((a) => asFileChange(a).path))
    const applied: ChangeOutcome = accepted.length === set.changes.length ? 'applied' : accepted.length === 0 ? 'discarded' : 'partial'
    const result = (applyError?: string): FinishedChanges => ({
      changes: (review ? listed.filter((l) => acceptedPaths.has(l.path)) : listed).map(({ diff: _d, ...c }) => c),
      applied: applyError ? 'partial' : applied,
      unchanged,
      ...(applyError ? { applyError } : {}),
    })
    if (accepted.length === 0) return result()
    // bash works on an overlay, where read-only parts are plain folders of the view: a change it made
    // there must not reach the real read-only path. All or nothing: then nothing is applied.
    const refused = touchesReadOnly(env, accepted)
    if (refused) return { ...result(), applied: 'discarded', refused }
    // Files the run staged in memory become files of the stage now, each created once, right before the
    // journal: from here on it holds every new byte, and each file lands by a rename as before.
    await view.materialise(accepted.filter((c) => c.kind === 'file' && view.memory.files.has(c.rel)).map((c) => c.rel))
    const key = stateKey(env.stateDir)
    if (!key.ok)
      return { ...result(), applied: 'discarded', refused: `the apply's journal cannot be signed (${key.message}); nothing was applied` }
    const journal = { root: env.config.root, readOnly: env.config.readOnly, upper: stage.upper, pid: process.pid, changes: accepted }
    await writeJournal(stage.dir, { ...journal, startedAt: new Date().toISOString() }, key.value)
    try {
      await applyJournal({ ...journal, startedAt: '' })
    } catch (err) {
      // Left in place: the next start tries to finish it from the journal.
      keepStage = true
      return result(err instanceof Error ? err.message : String(err))
    }
    await markDone(stage.dir)
    return result()
  } finally {
    // In the background: the result does not wait on deleting the stage; `settleStageRemovals` (close) does.
    if (!keepStage) removeLater(stage)
  }
}

/** The changes a person accepted, asked one by one in order ('all' accepts the rest, 'quit' the none of them). */
async function reviewed(changes: StagedChange[], listed: FileChange[], review: ReviewChange): Promise<StagedChange[]> {
  const accepted: StagedChange[] = []
  let all = false
  for (let i = 0; i < changes.length; i++) {
    const answer = all ? 'apply' : await review(listed[i] as FileChange & { diff: string }, i, changes.length)
    if (answer === 'quit') break
    if (answer === 'all') all = true
    if (answer === 'apply' || answer === 'all') accepted.push(changes[i]!)
  }
  return accepted
}

/** Why nothing may be applied when a staged change touches a read-only path; undefined when none does. */
function touchesReadOnly(env: WorkspaceRunEnv, accepted: StagedChange[]): string | undefined {
  const { root, readOnly } = env.config
  const ro = accepted.filter((c) => readOnly.some((r) => isWithin(join(root, c.rel), r) || isWithin(r, join(root, c.rel))))
  if (ro.length === 0) return undefined
  const some = `${ro
    .slice(0, 3)
    .map((c) => c.rel)
    .join(', ')}${ro.length > 3 ? ', …' : ''}`
  return `${ro.length} staged change(s) touch read-only paths (${some}); read-only paths are never changed, so nothing was applied (EROFS)`
}

const removals = new Set<Promise<unknown>>()

function removeLater(stage: Stage): void {
  const removal = stage.remove().catch(() => undefined)
  removals.add(removal)
  void removal.finally(() => removals.delete(removal))
}

/** `ops` whose reads are noted (workspace-relative, as `view` names them) for the run's unchanged list. */
function noteReads(ops: WorkspaceOps, view: StagedView, read: Set<string>): WorkspaceOps {
  return {
    ...ops,
    readFile: async (path, maxBytes) => {
      const text = await ops.readFile(path, maxBytes)
      read.add(view.rel(path))
      return text
    },
  }
}

/** Waits until every finished run's stage folder is gone. */
export async function settleStageRemovals(): Promise<void> {
  while (removals.size > 0) await Promise.all([...removals])
}

/**
 * A run's record, opened first and ended last: `openRun` logs `run/start` and fixes the run's id, limits
 * and change mode; `end` logs `run/end` (with what the workspace did) and renders the RunResult from the
 * log alone, so an observation can always be rebuilt from the log.
 */
import { randomUUID } from 'node:crypto'
import type { ChangeMode, ChangeOutcome, EventData, Limits, RunError, RunResult } from '../vocabulary/types.js'
import type { FinishedChanges } from './changes/run-changes.js'
import { resolveLimits } from './limits.js'
import { eventsOfRun, recordFromEvents, renderObservation } from './observation.js'
import type { RunCodeDeps, RunOptions } from './run-inputs.js'
import { runMarks } from './run-marks.js'
import { withCompactJson } from './run-result-json.js'
import type { SessionRun } from './session-run.js'

type EndData = Omit<EventData['run/end'], 'runId'>

export interface OpenRun {
  readonly runId: string
  readonly limits: Limits
  readonly changeMode: ChangeMode
  readonly options: RunOptions
  /** The workspace's changes once the run's stage settled (set by the execute stage). */
  finished?: FinishedChanges
  /** Session runs: the clock values the run read (the log keeps them for a replay). */
  clock?: number[]
  end(data: EndData): RunResult
  /** Ends the run before its program ran: nothing was dropped, nothing noted. */
  stop(error: RunError): RunResult
}

/** Opens the run's record. Throws only for API misuse (bad limits, a staged mode without a workspace). */
export function openRun(deps: RunCodeDeps, code: string, options: RunOptions, session?: SessionRun): OpenRun {
  runMarks.at?.('start')
  deps.noteActivity?.()
  const { log } = deps.env
  // A per-run override is checked and clamped like the runtime's own limits.
  const limits = options.limits ? resolveLimits(options.limits, deps.limits) : deps.limits
  const changeMode: ChangeMode = options.review ? 'atomic' : (options.changes ?? deps.workspace?.mode ?? 'apply')
  if (!deps.workspace && changeMode !== 'apply') throw new TypeError('codeact: changes: "atomic" and "dry-run" need a workspace')
  const runId = options.parentId ?? `run_${randomUUID().slice(0, 8)}`
  const firstSeq = log.length
  const unpin = log.pin(firstSeq)
  log.append('run/start', {
    runId,
    ...(options.parentId ? { parentId: options.parentId } : {}),
    ...(options.caller !== undefined ? { caller: options.caller } : {}),
    sandbox: deps.sandbox.name,
    code,
    maxObservationBytes: limits.maxObservationBytes,
    ...(session ? { session: session.mark } : {}),
  })
  const run: OpenRun = {
    runId,
    limits,
    changeMode,
    options,
    end: (data) => endRun(deps, run, firstSeq, unpin, data),
    stop: (error) => run.end({ ok: false, error, droppedOutputBytes: 0 }),
  }
  return run
}

/** What the run's end says of the workspace: its changes, whether they landed, and why not. */
function workspaceEnd(run: OpenRun, data: EndData): Partial<EventData['run/end']> {
  const { changeMode, finished } = run
  const none: ChangeOutcome = changeMode === 'dry-run' ? 'dry-run' : changeMode === 'atomic' && !data.ok ? 'discarded' : 'applied'
  const ws: Partial<EventData['run/end']> = {
    changes: (finished?.changes ?? []).map(({ diff: _diff, ...c }) => c),
    applied: finished?.applied ?? none,
  }
  if (changeMode !== 'apply') ws.changeMode = changeMode
  if (finished?.applyError)
    ws.notes = [...(data.notes ?? []), `Applying the changes stopped: ${finished.applyError}; the next start will try to finish it.`]
  if (finished?.refused) ws.notes = [...(data.notes ?? []), `Nothing was applied: ${finished.refused}.`]
  return ws
}

function endRun(deps: RunCodeDeps, run: OpenRun, firstSeq: number, unpin: () => void, data: EndData): RunResult {
  const ws: Partial<EventData['run/end']> = run.clock ? { clock: run.clock } : {}
  if (deps.workspace) Object.assign(ws, workspaceEnd(run, data))
  const { log } = deps.env
  log.append('run/end', { runId: run.runId, ...data, ...ws })
  const events = eventsOfRun(log.since(firstSeq), run.runId)
  unpin()
  const record = recordFromEvents(events, run.runId)!
  const result = withCompactJson({
    ok: data.ok,
    value: data.value,
    logs: record.logs,
    calls: record.calls,
    error: data.error,
    observation: renderObservation(record, run.limits.maxObservationBytes),
    events,
  })
  runMarks.at?.('end')
  deps.noteActivity?.()
  if (deps.workspace) {
    result.changes = run.finished?.changes ?? []
    result.applied = ws.applied!
  }
  return result
}

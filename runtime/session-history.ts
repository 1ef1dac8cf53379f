/**
 * A session's history: what a restore replays. Each run's original code, its tool results in issue order
 * (results commit in issue order, so that is also the order the program saw them), its entropy (seed,
 * clock), and whether it can be replayed. Built from a run's events alone, so the in-memory history and
 * a `logFile` written by an earlier runtime give the same records.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { EventData, RunErrorKind, RunEvent } from '../vocabulary/types.js'
import { verifyLog } from './log-signing.js'

export interface HistoryRun {
  runId: string
  code: string
  seed: string
  clock: number[]
  /** JSON text of each tool result, in issue order: what the program got back. */
  results: string[]
  /** The tool names of those calls, to notice a replay that diverges. */
  names: string[]
  /** The run ended ok (a replay that does not is a divergence). */
  ok: boolean
  /** Set when the run itself ended the realm (memory, timeout, abort, call cap): it is not replayed. */
  lost?: string
  /** The compiled program (this runtime's runs only; a run read from a log is prepared again). */
  js?: string
}

/** Kinds that end (dispose) the session's realm: such a run is not replayed. */
const REALM_ENDING: readonly RunErrorKind[] = ['memory', 'timeout', 'aborted']

/** A run's record from its events (its run/start … run/end slice); undefined when nothing of it ran. */
export function historyRun(events: readonly RunEvent[], runId: string): HistoryRun | undefined {
  let start: EventData['run/start'] | undefined
  let end: EventData['run/end'] | undefined
  const byIndex = new Map<number, { name: string; text?: string }>()
  const prefix = `${runId}.`
  for (const e of events) {
    if (e.type === 'run/start' && (e.data as EventData['run/start']).runId === runId) start = e.data as EventData['run/start']
    else if (e.type === 'run/end' && (e.data as EventData['run/end']).runId === runId) end = e.data as EventData['run/end']
    else if (e.type === 'tool/call') {
      const d = e.data as EventData['tool/call']
      if (d.origin === 'code' && d.parentId === runId && d.id.startsWith(prefix))
        byIndex.set(Number(d.id.slice(prefix.length)), { name: d.name })
    } else if (e.type === 'tool/result') {
      const d = e.data as EventData['tool/result']
      const slot = d.id.startsWith(prefix) ? byIndex.get(Number(d.id.slice(prefix.length))) : undefined
      if (slot) slot.text = JSON.stringify(d.result)
    }
  }
  if (!start?.session || !end) return undefined
  const kind = end.error?.kind
  // Nothing ran: the program did not compile or type-check, or no sandbox was there to run it.
  if (kind === 'compile' || kind === 'type' || kind === 'sandbox_unavailable') return undefined
  const results: string[] = []
  const names: string[] = []
  const indexes = [...byIndex.keys()].sort((a, b) => a - b)
  for (const i of indexes) {
    const slot = byIndex.get(i)!
    names.push(slot.name)
    results.push(slot.text ?? JSON.stringify({ ok: false, error: { code: 'ECANCELED', message: 'the run is over' } }))
  }
  const run: HistoryRun = {
    runId,
    code: start.code,
    seed: start.session.seed,
    clock: (end.clock ?? []).filter((n) => typeof n === 'number' && Number.isFinite(n)),
    results,
    names,
    ok: end.ok,
  }
  if (kind !== undefined && REALM_ENDING.includes(kind)) run.lost = describeLoss(kind)
  else if (end.error?.code === 'EDQUOT') run.lost = 'was stopped at the tool call limit'
  return run
}

function describeLoss(kind: RunErrorKind): string {
  if (kind === 'memory') return 'ran out of memory'
  if (kind === 'timeout') return 'timed out'
  return 'was cancelled'
}

/**
 * Session histories found in an earlier runtime's JSONL log: per session (`sessionKey(caller, id)`), the events of its runs since
 * it last began afresh (its first run, a reset, a close). Read before the new runtime truncates the file, and
 * only from a log whose every line checks against `key` (log-signing.ts): a program that could write the
 * log must not write a history that a restore then runs.
 */
export function readPriorSessions(
  file: string,
  key: Buffer,
): { ok: true; sessions: Map<string, RunEvent[]> } | { ok: false; line: number; why: string } {
  const out = new Map<string, RunEvent[]>()
  if (!existsSync(file)) return { ok: true, sessions: out }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return { ok: true, sessions: out }
  }
  const checked = verifyLog(text, key)
  if (!checked.ok) return checked
  const runSession = new Map<string, string>()
  for (const e of checked.events) {
    if (e.type === 'session/end') {
      const end = e.data as EventData['session/end']
      out.delete(sessionKey(end.caller, end.id))
      continue
    }
    const id = sessionOf(e, runSession)
    if (id === undefined) continue
    if (e.type === 'run/start' && (e.data as EventData['run/start']).session?.fresh) out.set(id, [])
    const list = out.get(id) ?? []
    list.push(e)
    out.set(id, list)
  }
  return { ok: true, sessions: out }
}

function sessionOf(e: RunEvent, runSession: Map<string, string>): string | undefined {
  const d = e.data as { runId?: string; parentId?: string; session?: { id: string } }
  if (e.type === 'run/start') {
    const start = e.data as EventData['run/start']
    if (!start.session) return undefined
    const key = sessionKey(start.session.caller, start.session.id)
    runSession.set(start.runId, key)
    return key
  }
  const runId = e.type === 'tool/call' || e.type === 'tool/result' ? (d.parentId ?? ownerOf((e.data as { id: string }).id)) : d.runId
  return runId === undefined ? undefined : runSession.get(runId)
}

/** Sessions are per caller and id; this key (also the sandbox's realm id) tells them apart, whatever the id holds. */
export function sessionKey(caller: string | undefined, id: string): string {
  return `${caller === undefined ? '' : `c${encodeURIComponent(caller)}`}:${id}`
}

/** `run_ab12.3` → `run_ab12` (a tool/result names only its call). */
function ownerOf(callId: string): string | undefined {
  const dot = callId.lastIndexOf('.')
  return dot > 0 ? callId.slice(0, dot) : undefined
}

/**
 * The text a model reads after a run, rebuilt from the event log alone (invariant 3): console output,
 * then the return value, then — always, even when the program caught them — every failed or denied call,
 * then the error. Capped: the biggest sections are cut in the middle, with a marker saying how much.
 */
import type { CallRecord, EventData, LogEntry, RunEvent, ToolError } from '../vocabulary/types.js'
import { keptChangesLine } from './changes/kept-changes.js'
import { renderChanges, type ChangesView } from './changes/render.js'
import { renderCompleted } from './completed-calls.js'
import { renderValue } from './value-text.js'
import { callerOf } from './ptc/callers.js'

export interface RunRecord {
  runId: string
  logs: LogEntry[]
  calls: CallRecord[]
  denials: (ToolError & { callId?: string })[]
  /** What the run's calls asked a person, and the answers, in the order asked. */
  approvals?: { callId: string; name: string; message: string; answer?: EventData['approval/answer'] }[]
  end: EventData['run/end']
}

/** Collects one run's record from a log (the run's own events, or the whole log). */
export function recordFromEvents(events: readonly RunEvent[], runId: string): RunRecord | undefined {
  const logs: LogEntry[] = []
  const calls = new Map<string, CallRecord>()
  const denials: RunRecord['denials'] = []
  const approvals: NonNullable<RunRecord['approvals']> = []
  let end: EventData['run/end'] | undefined
  for (const e of events) {
    if (e.type === 'console') {
      const d = e.data as EventData['console']
      if (d.runId === runId) logs.push({ level: d.level, text: d.text })
    } else if (e.type === 'tool/call') {
      const d = e.data as EventData['tool/call']
      if (d.parentId === runId)
        calls.set(d.id, {
          id: d.id,
          name: d.name,
          args: d.args,
          ok: false,
          durationMs: 0,
          caller: callerOf(d),
          ...(d.sideEffects ? { sideEffects: true as const } : {}),
        })
    } else if (e.type === 'tool/result') {
      const d = e.data as EventData['tool/result']
      const c = calls.get(d.id)
      if (c) {
        c.ok = d.result.ok
        c.durationMs = d.durationMs
        if (d.result.ok) c.result = d.result.value
        else c.error = d.result.error
      }
    } else if (e.type === 'denial') {
      const d = e.data as EventData['denial']
      if (d.runId === runId) denials.push({ code: d.code, message: d.message, ...(d.callId ? { callId: d.callId } : {}) })
    } else if (e.type === 'approval/request') {
      const d = e.data as EventData['approval/request']
      if (d.runId === runId) approvals.push({ callId: d.callId, name: d.name, message: d.message })
    } else if (e.type === 'approval/answer') {
      const d = e.data as EventData['approval/answer']
      const asked = d.runId === runId ? approvals.find((a) => a.callId === d.callId && !a.answer) : undefined
      if (asked) asked.answer = d
    } else if (e.type === 'run/end') {
      const d = e.data as EventData['run/end']
      if (d.runId === runId) end = d
    }
  }
  return end ? { runId, logs, calls: [...calls.values()], denials, ...(approvals.length ? { approvals } : {}), end } : undefined
}

/** The events that belong to one run, out of a log where runs may interleave. */
export function eventsOfRun(events: readonly RunEvent[], runId: string): RunEvent[] {
  const ids = new Set<string>()
  return events.filter((e) => {
    const d = e.data as { runId?: string; parentId?: string; id?: string }
    switch (e.type) {
      case 'tool/call':
        if (d.parentId !== runId) return false
        ids.add(d.id!)
        return true
      case 'tool/result':
        return ids.has(d.id!)
      case 'run/start':
      case 'run/end':
      case 'console':
      case 'denial':
      case 'approval/request':
      case 'approval/answer':
        return d.runId === runId
      default:
        return false
    }
  })
}

const DENIAL_CODES = new Set(['EROFS', 'EACCES', 'EPERM'])
const MAX_LISTED = 20

/** `changesView`: how a front door lists the changes to a person (the model's list by default). */
export function renderObservation(record: RunRecord, maxBytes: number, changesView?: ChangesView): string {
  const sections: string[] = []
  const { end } = record
  // First, before the console lines: a failed run that left changes behind says so at once.
  const kept = keptChangesLine(end)
  if (kept) sections.push(kept)
  if (record.logs.length) sections.push(record.logs.map(renderLog).join('\n'))
  if (end.droppedOutputBytes > 0)
    sections.push(
      `[${end.droppedOutputBytes} bytes of console output were dropped by the output cap; raise it with --max-output (limits.maxOutputBytes)]`,
    )
  if (end.value !== undefined) sections.push(`Return value:\n${renderValue(end.value)}`)
  if (end.valueNote)
    sections.push(
      end.valueNote
        .split('\n')
        .map((n) => `Note: ${n}`)
        .join('\n'),
    )
  if (record.approvals?.length) sections.push(`Approvals (${record.approvals.length}):\n${listed(record.approvals.map(renderApproval))}`)
  const failed = record.calls.filter((c) => !c.ok)
  const refused = failed.filter((c) => DENIAL_CODES.has(c.error?.code ?? ''))
  const otherFailed = failed.filter((c) => !DENIAL_CODES.has(c.error?.code ?? ''))
  const denied = refused.map(renderFailedCall)
  for (const d of record.denials) {
    const by = d.callId ? record.calls.find((c) => c.id === d.callId)?.name : undefined
    denied.push(`- ${by ? `${by}: ` : ''}${d.code}: ${d.message}`)
  }
  if (denied.length) sections.push(`Denied (${denied.length}):\n${listed(denied)}`)
  if (otherFailed.length) {
    const lines = otherFailed.map(renderFailedCall)
    sections.push(`Failed tool calls (${otherFailed.length} of ${record.calls.length}):\n${listed(lines)}`)
  }
  const completed = end.ok ? undefined : renderCompleted(record.calls, end.applied === 'discarded' || end.applied === 'dry-run')
  if (completed) sections.push(completed)
  if (end.error) {
    const where = end.error.line ? `, line ${end.error.line}` : ''
    sections.push(`Error (${end.error.kind}${where}): ${end.error.message}`)
  }
  const changes = renderChanges(end, changesView)
  if (changes) sections.push(changes)
  for (const note of end.notes ?? []) sections.push(note)
  if (sections.length === 0)
    sections.push('(the program finished with no output and no return value; end it with `return <value>` to report a result)')
  return capSections(sections, maxBytes)
}

function renderFailedCall(c: CallRecord): string {
  return `- ${c.name}(${clip(JSON.stringify(c.args), 120)}) → ${c.error!.code}: ${c.error!.message}`
}

function renderApproval(a: NonNullable<RunRecord['approvals']>[number]): string {
  const answer = a.answer
  const outcome = !answer
    ? 'no answer'
    : answer.approved
      ? answer.by === 'always'
        ? 'approved (always for this tool)'
        : 'approved'
      : `denied${answer.reason ? `: ${answer.reason}` : ''}`
  return `- ${a.name} (${a.callId}) asked "${clip(a.message, 200)}" → ${outcome}`
}

function renderLog(entry: LogEntry): string {
  return entry.level === 'log' || entry.level === 'info' ? entry.text : `${entry.level}: ${entry.text}`
}

function listed(lines: string[]): string {
  const shown = lines.slice(0, MAX_LISTED)
  if (lines.length > MAX_LISTED) shown.push(`…and ${lines.length - MAX_LISTED} more`)
  return shown.join('\n')
}

function clip(text: string | undefined, max: number): string {
  const t = text ?? ''
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}

/** Cut the largest sections in the middle until the whole fits, so both ends of each stay readable. */
function capSections(sections: string[], maxBytes: number): string {
  const sep = '\n\n'
  const size = () => Buffer.byteLength(sections.join(sep))
  for (let guard = 0; size() > maxBytes && guard < 20; guard++) {
    let big = 0
    for (let i = 1; i < sections.length; i++) if (sections[i]!.length > sections[big]!.length) big = i
    const over = size() - maxBytes
    sections[big] = cutMiddle(sections[big]!, Math.max(0, sections[big]!.length - over - 80))
  }
  const text = sections.join(sep)
  return Buffer.byteLength(text) > maxBytes ? cutMiddle(text, maxBytes - 80) : text
}

function cutMiddle(text: string, keep: number): string {
  if (text.length <= keep) return text
  const head = Math.ceil(keep * 0.6)
  const tail = Math.max(0, keep - head)
  const cut = text.length - head - tail
  return `${text.slice(0, head)}\n…[${cut} characters cut to fit the observation cap (--max-observation)]…\n${tail ? text.slice(-tail) : ''}`
}

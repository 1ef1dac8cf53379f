/**
 * Rebuilds every observation a model saw from the event log alone (invariant 3): each standalone run's
 * observation, and each native batch's answers (a `run_code` answer is its run's observation).
 */
import { renderContent } from './native.js'
import { eventsOfRun, recordFromEvents, renderObservation } from './observation.js'
import type { EventData, RunEvent, ToolCall } from '../vocabulary/types.js'

export interface ReplayedObservation {
  /** The run id, or the native call id. */
  id: string
  /** `run` for a program run through `runCode`, else the native tool's name. */
  name: string
  content: string
}

export function replayObservations(events: readonly RunEvent[]): ReplayedObservation[] {
  const out: ReplayedObservation[] = []
  const calls = new Map<string, ToolCall>()
  const results = new Map<string, EventData['tool/result']>()
  const starts = new Map<string, EventData['run/start']>()
  const batches = new Map<string, EventData['batch/start']>()
  for (const e of events) {
    if (e.type === 'tool/call') {
      const d = e.data as ToolCall
      if (d.origin === 'native') calls.set(d.id, d)
    } else if (e.type === 'tool/result') {
      const d = e.data as EventData['tool/result']
      if (calls.has(d.id)) results.set(d.id, d)
    } else if (e.type === 'run/start') {
      const d = e.data as EventData['run/start']
      starts.set(d.runId, d)
    } else if (e.type === 'batch/start') {
      const d = e.data as EventData['batch/start']
      batches.set(d.batchId, d)
    } else if (e.type === 'run/end') {
      const d = e.data as EventData['run/end']
      const start = starts.get(d.runId)
      if (!start || start.parentId) continue // a run_code run is answered within its batch
      const record = recordFromEvents(eventsOfRun(events, d.runId), d.runId)
      if (record) out.push({ id: d.runId, name: 'run', content: renderObservation(record, start.maxObservationBytes) })
    } else if (e.type === 'batch/end') {
      for (const id of batches.get((e.data as EventData['batch/end']).batchId)?.ids ?? []) {
        const call = calls.get(id)
        const result = results.get(id)
        if (call && result) out.push({ id, name: call.name, content: renderContent(call, result.result).content })
      }
    }
  }
  return out
}

/** Rebuilds every ReAct exchange from the event log alone: the model's text and the observation it got. */
import type { EventData, RunEvent, ToolCall } from '../../vocabulary/types.js'
import { renderContent } from '../native.js'
import { renderReactObservation } from './observe.js'

export interface ReplayedExchange {
  turnId: string
  /** The model's text as it was given (thoughts included). */
  text: string
  /** The observation it was answered with, byte for byte. */
  observation: string
  final?: string
}

export function replayReact(events: readonly RunEvent[]): ReplayedExchange[] {
  const out: ReplayedExchange[] = []
  const turns = new Map<string, EventData['react/start']>()
  const calls = new Map<string, ToolCall>()
  const contents = new Map<string, string>()
  for (const e of events) {
    if (e.type === 'react/start') {
      const d = e.data as EventData['react/start']
      turns.set(d.turnId, d)
    } else if (e.type === 'tool/call') {
      const d = e.data as ToolCall
      calls.set(d.id, d)
    } else if (e.type === 'tool/result') {
      const d = e.data as EventData['tool/result']
      const call = calls.get(d.id)
      if (call) contents.set(d.id, renderContent(call, d.result).content)
    } else if (e.type === 'react/end') {
      const turn = turns.get((e.data as EventData['react/end']).turnId)
      if (!turn) continue
      const observation = renderReactObservation(
        turn,
        turn.ids.map((id) => contents.get(id) ?? ''),
      )
      out.push({ turnId: turn.turnId, text: turn.text, observation, ...(turn.final !== undefined ? { final: turn.final } : {}) })
    }
  }
  return out
}

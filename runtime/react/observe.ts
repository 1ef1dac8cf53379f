/** The observation text a ReAct turn answers with; one function for the live turn and for replay. */
import type { EventData } from '../../vocabulary/types.js'

/** `Observation: …` for one action, numbered for several, empty for a final answer. */
export function renderReactObservation(turn: EventData['react/start'], contents: readonly string[]): string {
  if (turn.final !== undefined) return ''
  if (turn.problem !== undefined) return `Observation: ${turn.problem}`
  if (contents.length === 1) return `Observation: ${contents[0]}`
  return contents.map((c, i) => `Observation ${i + 1}: ${c}`).join('\n')
}

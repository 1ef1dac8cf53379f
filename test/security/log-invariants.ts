/** Invariant 1 of DESIGN.md, checked over a whole event log: every `tool/call` has exactly one `tool/result`, after it. */
import type { RunEvent } from '../../vocabulary/types.js'

/** Ids of calls without exactly one result logged after them (empty when the invariant holds). */
export function unansweredCalls(events: readonly RunEvent[]): string[] {
  const calledAt = new Map<string, number>()
  const answers = new Map<string, number>()
  const bad = new Set<string>()
  for (const e of events) {
    if (e.type === 'tool/call') {
      const id = (e.data as { id: string }).id
      if (calledAt.has(id)) bad.add(id)
      calledAt.set(id, e.seq)
    } else if (e.type === 'tool/result') {
      const id = (e.data as { id: string }).id
      const at = calledAt.get(id)
      if (at === undefined || at > e.seq) bad.add(id)
      answers.set(id, (answers.get(id) ?? 0) + 1)
    }
  }
  for (const id of calledAt.keys()) if (answers.get(id) !== 1) bad.add(id)
  for (const id of answers.keys()) if (!calledAt.has(id)) bad.add(id)
  return [...bad]
}

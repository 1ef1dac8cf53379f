/**
 * The observation's "Changes" section, rebuilt from the run's end event alone: what the run did to the
 * workspace (capped list), and for staged runs what became of it.
 */
import type { EventData, FileChange } from '../../vocabulary/types.js'
import { quotePath } from '../../vocabulary/visible-text.js'

export const MAX_LISTED_CHANGES = 50

/** How a reader is shown the list: the model reads up to 50; a person at the CLI a few, and how to get all. */
export interface ChangesView {
  maxListed: number
  /** Said after "…and N more". */
  whereTheRestAre?: string
}

function counts(changes: readonly FileChange[]): string {
  const n = { modified: 0, created: 0, deleted: 0 }
  for (const c of changes) n[c.change]++
  return (['modified', 'created', 'deleted'] as const)
    .filter((k) => n[k] > 0)
    .map((k) => `${n[k]} ${k}`)
    .join(', ')
}

// Paths quoted as git quotes them: a name holding a newline or an escape cannot forge or hide a line.
function lister(view: ChangesView): (changes: readonly FileChange[]) => string {
  return (changes) => {
    const lines = changes.slice(0, view.maxListed).map((c) => `- ${c.change} ${quotePath(c.path)}`)
    const more = changes.length - view.maxListed
    if (more > 0) lines.push(`…and ${more} more${view.whereTheRestAre ? ` (${view.whereTheRestAre})` : ''}`)
    return lines.join('\n')
  }
}

export function renderChanges(end: EventData['run/end'], view: ChangesView = { maxListed: MAX_LISTED_CHANGES }): string | undefined {
  const list = lister(view)
  const changes = end.changes
  if (changes === undefined) return undefined
  const n = changes.length
  const what = n === 0 ? '' : ` (${n}: ${counts(changes)})`
  switch (end.applied) {
    case 'dry-run':
      return n === 0
        ? 'Dry run: the program would change nothing in the workspace.'
        : `Dry run — nothing was written; the program would make these changes${what}:\n${list(changes)}`
    case 'discarded':
      if (end.ok && n > 0) return `Nothing was applied (atomic run; see below). Discarded${what}:\n${list(changes)}`
      return n === 0 && end.ok
        ? 'Nothing was applied: every change was skipped in review.'
        : `Nothing was applied (atomic run): the run did not end ok, so ${n === 0 ? 'no change was made' : `its ${n} staged change(s) were discarded`}; the workspace is exactly as before.${n ? `\nDiscarded${what}:\n${list(changes)}` : ''}`
    case 'partial':
      return `Partly applied (review)${what}:\n${list(changes)}`
    default:
      if (n === 0) return end.changeMode === 'atomic' ? 'Changes: none (atomic run).' : undefined
      return `Changes${end.changeMode === 'atomic' ? ' (applied together, atomic run)' : ''}${what}:\n${list(changes)}`
  }
}

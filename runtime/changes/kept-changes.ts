/**
 * The first line of a failed run that changed files as it went (not all or nothing): how many changes stay
 * in the workspace and the command that undoes them, so a half-applied tree is never silent.
 */
import type { EventData } from '../../vocabulary/types.js'
import { quotePath } from '../../vocabulary/visible-text.js'

/** Paths written into an undo command; the rest are counted (the Changes list and `--json` have them all). */
const MAX_UNDO_PATHS = 5

export function keptChangesLine(end: EventData['run/end']): string | undefined {
  const changes = end.changes
  if (end.ok || end.applied !== 'applied' || end.changeMode === 'atomic' || !changes?.length) return undefined
  const back = changes.filter((c) => c.change !== 'created').map((c) => c.path)
  const madeDirs = changes.filter((c) => c.change === 'created' && c.path.endsWith('/')).map((c) => c.path)
  // What a created folder holds goes with it.
  const made = changes
    .filter((c) => c.change === 'created' && !madeDirs.some((d) => c.path !== d && c.path.startsWith(d)))
    .map((c) => c.path)
  const steps = [
    ...(back.length ? [`\`git checkout -- ${shellPaths(back)}\``] : []),
    ...(made.length ? [`\`rm -r -- ${shellPaths(made)}\``] : []),
  ]
  const more = changes.length > MAX_UNDO_PATHS ? ` (all ${changes.length} are listed under Changes)` : ''
  const folders = changes.filter((c) => c.path.endsWith('/')).length
  const files = changes.length - folders
  const what = [files ? `${files} file${files === 1 ? '' : 's'}` : '', folders ? `${folders} folder${folders === 1 ? '' : 's'}` : '']
  return `${what.filter(Boolean).join(' and ')} changed before the error and stay${changes.length === 1 ? 's' : ''} changed — undo: ${steps.join(' and ')}${more}; run it all or nothing (--atomic, changes: 'atomic') and a failed run changes nothing.`
}

/** Paths for a shell: quoted when they need it, the first few only. */
function shellPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_UNDO_PATHS).map(shellWord)
  return paths.length > MAX_UNDO_PATHS ? `${shown.join(' ')} …` : shown.join(' ')
}

function shellWord(path: string): string {
  const p = quotePath(path)
  return /^[\w./@%+=:,-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`
}

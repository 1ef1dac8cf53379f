/**
 * The closing summary of a batch run, jscodeshift-style: what happened to the files (modified / created /
 * deleted / unchanged / failed), how many tool calls, how long — and, for staged runs, whether anything
 * reached the workspace.
 */
import type { RunResult } from '../vocabulary/types.js'
import { count as n } from './count.js'
import type { LiveStats } from './live.js'

/** Tools that read or write a file's content: a path they touched and did not change is "unchanged". */
const CONTENT_TOOLS = new Set(['read_file', 'write_file', 'edit_file'])
const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'remove', 'mkdir', 'stat', 'list_dir'])

/** `skipped`: the paths a `--review` skipped (they are neither changed nor unchanged). */
export function summaryLines(result: RunResult, stats: LiveStats, skipped: ReadonlySet<string> = new Set()): string[] {
  const lines: string[] = []
  const failedCalls = result.calls.filter((c) => !c.ok)
  const head = `${result.ok ? 'Done' : 'Stopped'} in ${stats.elapsed()} · ${n(result.calls.length)} tool call${result.calls.length === 1 ? '' : 's'}${result.calls.length ? ` (${stats.tools(6)})` : ''}${failedCalls.length ? ` · ${n(failedCalls.length)} failed` : ''}`
  lines.push(head)
  if (result.changes === undefined) return lines
  const count = { modified: 0, created: 0, deleted: 0 }
  for (const c of result.changes) if (!c.path.endsWith('/')) count[c.change]++
  const changedPaths = new Set(result.changes.map((c) => c.path))
  const failedFiles = new Set<string>()
  for (const c of failedCalls) {
    const p = typeof c.args === 'object' && c.args !== null && !Array.isArray(c.args) ? c.args.path : undefined
    if (FILE_TOOLS.has(c.name) && typeof p === 'string' && !changedPaths.has(p)) failedFiles.add(p)
  }
  const unchanged = new Set<string>()
  for (const c of result.calls) {
    const p = typeof c.args === 'object' && c.args !== null && !Array.isArray(c.args) ? c.args.path : undefined
    if (c.ok && CONTENT_TOOLS.has(c.name) && typeof p === 'string' && !changedPaths.has(p) && !failedFiles.has(p) && !skipped.has(p))
      unchanged.add(p)
  }
  const verb = result.applied === 'dry-run' ? 'would be ' : ''
  const skippedFiles = [...skipped].filter((p) => !p.endsWith('/')).length
  const files = `${n(count.modified)} ${verb}modified, ${n(count.created)} ${verb}created, ${n(count.deleted)} ${verb}deleted, ${n(unchanged.size)} unchanged, ${n(failedFiles.size)} failed${skipped.size ? `, ${n(skippedFiles)} skipped in review` : ''}`
  switch (result.applied) {
    case 'dry-run':
      lines.push(`Dry run, nothing written: ${files}`)
      break
    case 'discarded':
      lines.push(
        result.ok
          ? `Nothing applied (every change skipped): ${files}`
          : `Nothing applied (atomic: the run did not end ok; the workspace is as it was). Staged: ${files}`,
      )
      break
    case 'partial':
      lines.push(`Applied in part (review): ${files}`)
      break
    default:
      lines.push(`Files: ${files}`)
  }
  return lines
}

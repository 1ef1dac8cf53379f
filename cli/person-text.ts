/**
 * What `codeact run` prints for a person once the run is over: the model's observation without the console
 * lines (they were printed live, once), the change list capped to a few lines with the way to get them all,
 * error locations as FILE:LINE:COL, and everything shown through `visible`.
 */
import { recordFromEvents, renderObservation } from '../runtime/observation.js'
import type { EventData, RunResult } from '../vocabulary/types.js'
import { visible } from '../vocabulary/visible-text.js'

/** Changed files listed after a run; the rest are counted, and `--json` lists them all. */
export const LISTED_CHANGES = 5

/** `2:25 message` lines of a check's or compiler's message, and `- line 4: …` notes, located in `file`. */
function located(text: string, file: string): string {
  return text
    .replace(/^(\d+):(\d+) /gm, (_, line: string, col: string) => `${file}:${line}:${col}: `)
    .replace(/^- line (\d+): /gm, (_, line: string) => `- ${file}:${line}: `)
}

export function personText(result: RunResult, file: string, consoleShown: boolean): string {
  const start = result.events.find((e) => e.type === 'run/start')?.data as EventData['run/start'] | undefined
  const record = start && recordFromEvents(result.events, start.runId)
  if (!start || !record) return visible(result.observation, { multiline: true })
  const shownLive = consoleShown && record.logs.length > 0
  if (consoleShown) record.logs = []
  const { error } = record.end
  if (error) {
    const at = error.line !== undefined && !/^\d+:\d+ /m.test(error.message) ? ` at ${file}:${error.line}:${error.column ?? 1}` : ''
    record.end = { ...record.end, error: { kind: error.kind, message: `${at ? `${at.slice(4)}: ` : ''}${located(error.message, file)}` } }
  }
  if (record.end.notes) record.end = { ...record.end, notes: record.end.notes.map((n) => located(n, file)) }
  const text = renderObservation(record, start.maxObservationBytes, { maxListed: LISTED_CHANGES, whereTheRestAre: '--json lists them all' })
  // "finished with no output" is not true of a program whose lines were just printed.
  if (shownLive && text.startsWith('(the program finished with no output')) return ''
  return visible(text, { multiline: true })
}

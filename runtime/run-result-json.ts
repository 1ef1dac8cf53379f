/**
 * The JSON form of a RunResult (`JSON.stringify(result)`, what `--json` prints): every console line is in
 * `logs` once, so the run's console events are folded into one marker event per stretch of consecutive
 * lines, `{ type: 'console', data: { runId, logs: [from, to] } }` (the `logs` indices they stand for).
 * Without that, a console flood printed several times its cap in JSON: each line twice, the second time
 * inside an event envelope. The in-memory `events` (and the JSONL log) keep every event as it was.
 */
import type { RunEvent, RunResult } from '../vocabulary/types.js'

export interface ConsoleStretch {
  runId: string
  /** Indices into `logs`: the lines `logs.slice(from, to)`. */
  logs: [number, number]
}

export function withCompactJson(result: RunResult): RunResult {
  Object.defineProperty(result, 'toJSON', {
    value: () => ({ ...result, events: foldConsoleEvents(result.events) }),
    enumerable: false,
    configurable: true,
  })
  return result
}

export function foldConsoleEvents(
  events: readonly RunEvent[],
): (RunEvent | { seq: number; time: number; type: 'console'; data: ConsoleStretch })[] {
  const out: (RunEvent | { seq: number; time: number; type: 'console'; data: ConsoleStretch })[] = []
  let line = 0
  for (const e of events) {
    if (e.type !== 'console') {
      out.push(e)
      continue
    }
    const last = out[out.length - 1]
    if (last && last.type === 'console' && 'logs' in last.data) {
      last.data.logs[1] = ++line
      continue
    }
    const runId = (e.data as { runId: string }).runId
    out.push({ seq: e.seq, time: e.time, type: 'console', data: { runId, logs: [line, ++line] } })
  }
  return out
}

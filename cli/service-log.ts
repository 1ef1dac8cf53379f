/**
 * The server's log on stderr: `json` (one object per line, what a log collector parses: `time`, `level`,
 * `msg` and the fields) or `text` (what a person reads: `codeact mcp: msg`). Finished runs are lines of
 * their own, with the run id, the MCP session, the outcome and the durations.
 */
import type { RunEnded } from '../runtime/run-watch.js'
import { visible } from '../vocabulary/visible-text.js'

export type LogFormat = 'json' | 'text'
export type LogLevel = 'info' | 'warn' | 'error'
const LABEL: Record<LogLevel, string> = { info: 'info', warn: 'warning', error: 'error' }

export interface ServiceLog {
  readonly format: LogFormat
  line(level: LogLevel, msg: string, fields?: Record<string, unknown>): void
  run(run: RunEnded): void
}

export function createServiceLog(format: LogFormat, stream: NodeJS.WritableStream): ServiceLog {
  const line = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (format === 'json') stream.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n')
    else stream.write(`codeact mcp: ${level === 'info' || msg.startsWith(`${LABEL[level]}: `) ? '' : `${LABEL[level]}: `}${visible(msg)}\n`)
  }
  return {
    format,
    line,
    run(run) {
      const fields = {
        runId: run.runId,
        ...(run.caller !== undefined ? { sessionId: run.caller } : {}),
        outcome: run.outcome,
        ...(run.code !== undefined ? { code: run.code } : {}),
        durationMs: run.durationMs,
        calls: run.calls,
        failedCalls: run.failedCalls,
      }
      if (format === 'json') return line(run.outcome === 'ok' ? 'info' : 'warn', 'run', fields)
      const failed = run.failedCalls ? `, ${run.failedCalls} failed` : ''
      line(
        'info',
        `run ${run.runId} ${run.outcome}${run.code ? ` (${run.code})` : ''} in ${run.durationMs} ms, ${run.calls} calls${failed}`,
      )
    },
  }
}

/** `--log-format`: json or text; unset, text on a terminal and json otherwise (a container, a pipe). */
export function logFormatFromFlag(text: string | undefined, stderrIsTty: boolean): LogFormat | string {
  if (text === undefined) return stderrIsTty ? 'text' : 'json'
  if (text === 'json' || text === 'text') return text
  return `--log-format takes json or text, got "${text}"`
}

/**
 * `run_code`'s `structuredContent`: the run's value, its error and one line per sub-call — never the
 * sub-calls' results (a program that reads a 5 MB file and returns its length sends a few hundred bytes).
 * The whole object stays within the observation's byte cap; what does not fit is counted, not sent.
 */
import type { JsonSchema, JsonValue, RunResult } from '../vocabulary/types.js'

export interface StructuredRunResult {
  [key: string]: JsonValue | undefined
  ok: boolean
  value?: JsonValue
  /** Set instead of `value` when the value did not fit the cap: its size as JSON. */
  valueBytes?: number
  error: { kind: string; message: string; code?: string; line?: number; column?: number } | null
  calls: { id: string; name: string; ok: boolean; code?: string; message?: string; durationMs: number }[]
  /** Calls left out of `calls` to stay within the cap (the observation and the log have them all). */
  callsOmitted?: number
}

/** Declared as `run_code`'s `outputSchema`; `structuredRunResult` always conforms. */
export const RUN_CODE_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'The program finished without an error.' },
    value: {
      description:
        "The program's return value (any JSON). Absent when it returned nothing, or when it was too large (then valueBytes is set).",
      anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
    },
    valueBytes: {
      type: 'integer',
      description: 'The size of the return value as JSON, when it was too large to include (the observation text shows its start).',
    },
    error: {
      description: 'null when ok; else why the run failed.',
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: {
            kind: { type: 'string', enum: ['compile', 'type', 'runtime', 'timeout', 'memory', 'aborted', 'sandbox_unavailable'] },
            message: { type: 'string' },
            code: { type: 'string', description: 'errno-style code (EDQUOT, SANDBOX_UNAVAILABLE …) where there is one' },
            line: { type: 'integer', description: '1-based line in the program' },
            column: { type: 'integer' },
          },
          required: ['kind', 'message'],
        },
      ],
    },
    calls: {
      type: 'array',
      description: 'Every tool call the program made, in issue order, without its result.',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          ok: { type: 'boolean' },
          code: { type: 'string', description: 'The error code of a failed or denied call (EROFS, ENOENT …)' },
          message: { type: 'string' },
          durationMs: { type: 'number' },
        },
        required: ['id', 'name', 'ok', 'durationMs'],
      },
    },
    callsOmitted: { type: 'integer', description: 'Calls left out of calls to keep the result small.' },
  },
  required: ['ok', 'error', 'calls'],
}

const MAX_ERROR_MESSAGE = 4 * 1024
const MAX_CALL_MESSAGE = 300

export function structuredRunResult(result: RunResult, maxBytes: number): StructuredRunResult {
  const error = result.error
    ? {
        kind: result.error.kind,
        message: cut(result.error.message, Math.min(MAX_ERROR_MESSAGE, Math.floor(maxBytes / 4))),
        ...(result.error.code ? { code: result.error.code } : {}),
        ...(result.error.line !== undefined ? { line: result.error.line } : {}),
        ...(result.error.column !== undefined ? { column: result.error.column } : {}),
      }
    : null
  const out: StructuredRunResult = { ok: result.ok, error, calls: [] }
  const calls = result.calls.map((c) => ({
    id: c.id,
    name: c.name,
    ok: c.ok,
    ...(c.error ? { code: c.error.code, message: cut(c.error.message, MAX_CALL_MESSAGE) } : {}),
    durationMs: c.durationMs,
  }))
  const callBytes = calls.reduce((n, c) => n + bytes(c) + 1, 0)
  // The calls keep a quarter of the budget for themselves; the value may use the rest.
  const reserved = Math.min(callBytes, Math.floor(maxBytes / 4))
  if (result.value !== undefined) {
    const size = bytes(result.value)
    if (bytes(out) + size + 64 + reserved <= maxBytes) out.value = result.value
    else out.valueBytes = size
  }
  let used = bytes(out) + 32
  let kept = 0
  for (const c of calls) {
    const size = bytes(c) + 1
    if (used + size > maxBytes) break
    out.calls.push(c)
    used += size
    kept++
  }
  if (kept < calls.length) out.callsOmitted = calls.length - kept
  return out
}

function bytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? '')
}

function cut(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text
  return (
    Buffer.from(text)
      .subarray(0, Math.max(0, max - 3))
      .toString('utf8')
      .replace(/\uFFFD$/, '') + '…'
  )
}

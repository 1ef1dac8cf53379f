/** run_code's structuredContent: whatever the run, it conforms to the declared outputSchema and fits the cap. */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { RUN_CODE_OUTPUT_SCHEMA, structuredRunResult } from '../../mcp/run-result.js'
import type { CallRecord, JsonValue, RunResult } from '../../vocabulary/types.js'

const validate = new Ajv2020({ strict: false }).compile(RUN_CODE_OUTPUT_SCHEMA)

function random(seed: number): () => number {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648
}

function value(r: () => number, depth = 0): JsonValue {
  const k = Math.floor(r() * (depth > 2 ? 4 : 6))
  if (k === 0) return null
  if (k === 1) return r() * 1e6
  if (k === 2) return 'é✓'.repeat(Math.floor(r() * 20_000))
  if (k === 3) return r() > 0.5
  if (k === 4) return Array.from({ length: Math.floor(r() * 50) }, () => value(r, depth + 1))
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 20) }, (_, i) => [`k${i}`, value(r, depth + 1)]))
}

function run(r: () => number): RunResult {
  const calls: CallRecord[] = Array.from({ length: Math.floor(r() * 3000) }, (_, i) => ({
    id: `run_1.${i + 1}`,
    name: `tool_${i % 7}`,
    args: { big: 'x'.repeat(100) },
    ok: r() > 0.2,
    result: 'full result that must never be sent '.repeat(100),
    ...(r() > 0.8 ? { error: { code: 'ENOENT', message: 'no such file '.repeat(Math.floor(r() * 100)) } } : {}),
    durationMs: r() * 100,
  }))
  const failed = r() > 0.5
  return {
    ok: !failed,
    value: failed || r() > 0.8 ? undefined : value(r),
    logs: [],
    calls,
    error: failed ? { kind: 'runtime', message: 'boom '.repeat(Math.floor(r() * 5000)), line: 3, column: 7 } : null,
    observation: '',
    events: [],
  }
}

describe('structuredRunResult', () => {
  it('conforms to RUN_CODE_OUTPUT_SCHEMA, fits the cap and never carries call results (150 random runs)', () => {
    const r = random(42)
    for (let i = 0; i < 150; i++) {
      const cap = [1024, 4096, 32 * 1024][i % 3]!
      const input = run(r)
      const out = structuredRunResult(input, cap)
      expect(validate(out), JSON.stringify(validate.errors)).toBe(true)
      const text = JSON.stringify(out)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap)
      expect(text).not.toContain('full result that must never be sent')
      expect(out.calls.length + (out.callsOmitted ?? 0)).toBe(input.calls.length)
      if (input.value !== undefined)
        expect(out.value !== undefined || out.valueBytes === Buffer.byteLength(JSON.stringify(input.value))).toBe(true)
    }
  })
})

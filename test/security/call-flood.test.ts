/**
 * The host under a flood of calls from one program (the framed pipe, the grouped arming, the scheduler): 100,000
 * calls fired at once, and a flood that crosses the run's call limit. What must hold: the child refuses what it
 * cannot hold in flight (EAGAIN) rather than queue it without bound, every call the host saw is executed once and
 * has exactly one result, the call limit stops the run at its exact count (not one call past it), and the runtime
 * is fine after.
 *
 * What breaks them: a call counted twice or dropped in a batched frame, an answer batch that loses one, the
 * in-flight cap (isolate-run.ts) gone, `issued > maxToolCalls` checked after dispatch (run-code.ts).
 */
import { describe, expect, it } from 'vitest'
import { MAX_CALLS_IN_FLIGHT } from '../../guest/limits.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

function counted() {
  const c = { executed: 0, ids: new Set<number>() }
  const quick: AnyToolDefinition = {
    name: 'quick',
    description: 'Answers in a microtask; counts its calls.',
    parameters: { type: 'object', properties: { i: { type: 'number' } }, required: ['i'] },
    output: { type: 'number' },
    execute: async ({ i }: { i: number }) => {
      c.executed++
      c.ids.add(i)
      return i
    },
  }
  return { c, quick }
}

describe('a flood of tool calls', () => {
  it('100,000 calls fired at once: what the child cannot hold is refused EAGAIN, the rest run once each, every call has one result', async () => {
    const { c, quick } = counted()
    const rt = await testRuntime({ tools: [quick], limits: { timeoutMs: 120_000, deadlineMs: 240_000 } })
    const r = await rt.runCode(`
      const settled = await Promise.allSettled(Array.from({ length: 100_000 }, (_, i) => tools.quick({ i })))
      let ok = 0, sum = 0
      const codes = new Set<string>()
      for (const s of settled) {
        if (s.status === 'fulfilled') { ok++; sum += s.value }
        else codes.add(String((s.reason as { code?: string }).code))
      }
      return { ok, sum, codes: [...codes] }`)
    expect(r.error, r.observation.slice(0, 500)).toBeNull()
    const v = r.value as { ok: number; sum: number; codes: string[] }
    // The answers the program got are exactly the calls the tool ran, each once.
    expect(v.ok).toBe(c.executed)
    expect(c.ids.size).toBe(c.executed)
    expect(v.sum).toBe([...c.ids].reduce((a, b) => a + b, 0))
    expect(v.ok).toBeGreaterThanOrEqual(MAX_CALLS_IN_FLIGHT)
    if (v.ok < 100_000) expect(v.codes).toEqual(['EAGAIN'])
    expect(r.calls).toHaveLength(c.executed)
    expect(unmatchedCalls(r.events)).toEqual([])

    const after = await rt.runCode('return await tools.quick({ i: 7 })')
    expect(after.value).toBe(7)
  }, 240_000)

  it('a flood across the call limit stops the run at the limit exactly: not one call past it runs', async () => {
    const { c, quick } = counted()
    const rt = await testRuntime({ tools: [quick], limits: { maxToolCalls: 5_000, timeoutMs: 120_000, deadlineMs: 240_000 } })
    const r = await rt.runCode(`
      for (let k = 0; k < 6; k++) await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => tools.quick({ i: k * 1000 + i })))
      return 'not reached'`)
    expect(r.error?.code, r.observation.slice(0, 500)).toBe('EDQUOT')
    expect(r.value).toBeUndefined()
    expect(c.executed).toBe(5_000)
    expect(unmatchedCalls(r.events)).toEqual([])
    const after = await rt.runCode('return await tools.quick({ i: 8 })')
    expect(after.value).toBe(8)
  }, 240_000)
})

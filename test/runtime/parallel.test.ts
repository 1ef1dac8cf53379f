import { describe, expect, it } from 'vitest'
import { timedTools, type Timeline } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

describe('sub-calls from a program: Promise.all really overlaps, exclusive tools are barriers', () => {
  it('overlaps calls in a pool bounded by maxParallelToolCalls and records results in issue order', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline), limits: { maxParallelToolCalls: 4 } })
    const r = await rt.runCode(`
      const ids = Array.from({ length: 8 }, (_, i) => 's' + i)
      return await Promise.all(ids.map((id, i) => tools.sleep({ id, ms: i === 0 ? 300 : 40 })))`)
    expect(r.value).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'])
    expect(timeline.peak).toBe(4)
    expect(r.calls.map((c) => (c.args as { id: string }).id)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'])
    const results = r.events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { id: string }).id)
    expect(results).toEqual(r.calls.map((c) => c.id))
  })

  it('defaults to a pool of 64 (wide enough for fan-out, README "Parallel calls")', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline) })
    await rt.runCode('await Promise.all(Array.from({ length: 100 }, (_, i) => tools.sleep({ id: String(i), ms: 250 })))')
    expect(timeline.peak).toBe(64)
  })

  it('runs an exclusive call after the calls before it and before the calls after it', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline) })
    await rt.runCode(`await Promise.all([
      tools.sleep({ id: 'a', ms: 120 }), tools.sleep({ id: 'b', ms: 60 }),
      tools.deploy({ id: 'x', ms: 50 }),
      tools.sleep({ id: 'c', ms: 10 }), tools.sleep({ id: 'd', ms: 10 }),
    ])`)
    const t = (id: string, at: 'start' | 'end') => timeline.events.find((e) => e.id === id && e.at === at)!.t
    expect(t('a', 'start')).toBeLessThan(t('b', 'end'))
    expect(t('x', 'start')).toBeGreaterThanOrEqual(Math.max(t('a', 'end'), t('b', 'end')))
    expect(Math.min(t('c', 'start'), t('d', 'start'))).toBeGreaterThanOrEqual(t('x', 'end'))
  })
})

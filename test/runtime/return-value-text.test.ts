/**
 * How a returned value reads in the observation: compact JSON for the model, which pays for every token —
 * a list of plain values fills a few lines, a list of records keeps one record per line.
 */
import { describe, expect, it } from 'vitest'
import { testRuntime } from '../support/runtime.js'

function returned(observation: string): string {
  return observation.slice(observation.indexOf('Return value:\n') + 'Return value:\n'.length)
}

describe('a returned value in the observation', () => {
  it('puts a list of 100 ids on a few lines, within 5% of compact JSON', async () => {
    const rt = await testRuntime()
    const r = await rt.runCode(`return Array.from({ length: 100 }, (_, i) => 'ord_' + (1000 + i))`)
    const text = returned(r.observation)
    expect(text.split('\n').length).toBeLessThanOrEqual(12)
    expect(text.length).toBeLessThanOrEqual(JSON.stringify(r.value).length * 1.05)
    expect(JSON.parse(text)).toEqual(r.value)
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(120)
  })

  it('fills lines with numbers inside an object too, and the object stays one key per line', async () => {
    const rt = await testRuntime()
    const r = await rt.runCode(`return { count: 100, ids: Array.from({ length: 100 }, (_, i) => 1000 + i) }`)
    const text = returned(r.observation)
    expect(text).toMatch(/^\{\n {2}"count": 100,\n {2}"ids": \[\n {4}1000,1001,1002,/)
    expect(text.split('\n').length).toBeLessThanOrEqual(10)
    expect(JSON.parse(text)).toEqual(r.value)
  })

  it('keeps a list of records one record per line', async () => {
    const rt = await testRuntime()
    const r = await rt.runCode(`return Array.from({ length: 10 }, (_, i) => ({ id: 'ord_' + i, total_cents: 100 * i, status: 'paid' }))`)
    const lines = returned(r.observation).split('\n')
    expect(lines).toHaveLength(12)
    expect(lines[1]).toBe('  {"id":"ord_0","total_cents":0,"status":"paid"},')
  })
})

/**
 * An agent's next program often comes minutes after the last (a person answering): a check-on runtime that
 * is still open keeps its checker thread past the pool's idle time, so that program is checked by a warm
 * thread, not one that loads TypeScript and the lib again (1.8–8 s measured after a 65 s pause). Threads
 * beyond the last, and the last once every check-on runtime is closed, still end when idle.
 * CODEACT_CHECKER_IDLE_MS shortens the idle time here so the test does not wait a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { poolThreadsStarted } from '../../program/typecheck-pool.js'
import { basicTools } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

const IDLE = 150
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(() => {
  process.env.CODEACT_CHECKER_IDLE_MS = String(IDLE)
})
afterAll(() => {
  delete process.env.CODEACT_CHECKER_IDLE_MS
})

describe('the checker thread of an open check-on runtime', () => {
  it('outlives the idle time while the runtime is open, and ends after it closes', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const first = await rt.runCode('const n: number = await tools.add({ a: 1, b: 2 })\nreturn n')
    expect(first.value, first.observation).toBe(3)
    const threads = poolThreadsStarted()

    // Idle far past the idle time, as between two turns of a conversation.
    await pause(IDLE * 5)
    const wrong = await rt.runCode('return await tools.add({ a: 1 })')
    expect(wrong.error?.kind, wrong.observation).toBe('type')
    const right = await rt.runCode('const n: number = await tools.add({ a: 2, b: 2 })\nreturn n')
    expect(right.value, right.observation).toBe(4)
    expect(poolThreadsStarted(), 'the next checks went to the thread that was kept').toBe(threads)

    // Closed, the runtime no longer holds it: it ends when idle, and a later runtime starts a new one.
    await rt.close()
    await pause(IDLE * 5)
    const later = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const again = await later.runCode('const n: number = await tools.add({ a: 3, b: 3 })\nreturn n')
    expect(again.value, again.observation).toBe(6)
    expect(poolThreadsStarted()).toBeGreaterThan(threads)
  })
})

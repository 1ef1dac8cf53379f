/**
 * With the check off, the checker's threads only normalise and parse programs, so they start without the
 * TypeScript lib parsed (~0.5 s and ~20 MB each). A process that later checks programs still gets real
 * checks from those same threads: the lib is parsed for the first check, and that check keeps its budget.
 */
import { describe, expect, it } from 'vitest'
import { basicTools } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

describe('checker threads started with the check off', () => {
  it('serve a later runtime that checks: a wrong program is blocked, a right one runs', async () => {
    const off = await testRuntime({ tools: basicTools, typecheck: 'off' })
    // The thread is up, started for a process that had not asked for a check.
    expect((await off.runCode('return await tools.add({ a: 1, b: 2 })')).value).toBe(3)
    expect((await off.runCode('return await tools.add({ a: 1 })')).error?.kind).not.toBe('type')

    const on = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const wrong = await on.runCode('return await tools.add({ a: 1 })')
    expect(wrong.error?.kind, wrong.observation).toBe('type')
    expect(wrong.calls).toEqual([])
    const right = await on.runCode('const n: number = await tools.add({ a: 2, b: 2 })\nreturn n')
    expect(right.error, right.observation).toBeNull()
    expect(right.value).toBe(4)
    // And the unchecked runtime is still unchecked.
    expect((await off.runCode('const s: string = 1\nreturn s')).value).toBe(1)
  })
})

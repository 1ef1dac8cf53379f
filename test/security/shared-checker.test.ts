/**
 * The checker threads are shared by every runtime of a process, and one is kept while a check-on runtime is open
 * (program/typecheck-pool.ts holdChecker); the type check also overlaps the run (runtime/verdict-gate.ts). From the
 * side of two runtimes with different tools in one process, their checks interleaved on the same kept thread:
 * each program is checked against its own runtime's declarations only — a tool of the other runtime is a type
 * error, never a pass — and a tool list changed on a runtime (refresh) is what its next check sees.
 *
 * What breaks them: a thread that keeps the declarations of the last job it served for the next (a cache keyed
 * by thread, not by declarations text), or a runtime's refresh not reaching the thread.
 */
import { describe, expect, it } from 'vitest'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

function tool(name: string, counter: { n: number }): AnyToolDefinition {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
    output: { type: 'number' },
    execute: ({ x }: { x: number }) => {
      counter.n++
      return x
    },
  }
}

describe('two check-on runtimes sharing the kept checker thread', () => {
  it("each program is checked against its own runtime's tools, the checks interleaved", async () => {
    const ranA = { n: 0 }
    const ranB = { n: 0 }
    const a = await testRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [tool('onlyInA', ranA)] })
    const b = await testRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [tool('onlyInB', ranB)] })
    for (let round = 0; round < 3; round++) {
      const [aOwn, aOther, bOwn, bOther] = await Promise.all([
        a.runCode('return await tools.onlyInA({ x: 1 })'),
        a.runCode('return await tools.onlyInB({ x: 2 })'),
        b.runCode('return await tools.onlyInB({ x: 3 })'),
        b.runCode('return await tools.onlyInA({ x: 4 })'),
      ])
      expect(aOwn?.value, aOwn?.observation).toBe(1)
      expect(bOwn?.value, bOwn?.observation).toBe(3)
      expect(aOther?.error?.kind, aOther?.observation).toBe('type')
      expect(aOther?.error?.message).toMatch(/onlyInB/)
      expect(bOther?.error?.kind, bOther?.observation).toBe('type')
      expect(bOther?.error?.message).toMatch(/onlyInA/)
    }
    // Only the well-typed calls ran, on their own runtimes.
    expect([ranA.n, ranB.n]).toEqual([3, 3])
  }, 120_000)

  it("a tool registered on one runtime later is in that runtime's next check, and only in its own", async () => {
    const ran = { n: 0 }
    const a = await testRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [tool('first', ran)] })
    const b = await testRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [tool('first', ran)] })
    expect((await a.runCode('return await tools.added({ x: 1 })')).error?.kind).toBe('type')
    a.tools.register([tool('added', ran)])
    const now = await a.runCode('return await tools.added({ x: 5 })')
    expect(now.error, now.observation).toBeNull()
    expect(now.value).toBe(5)
    const other = await b.runCode('return await tools.added({ x: 6 })')
    expect(other.error?.kind, other.observation).toBe('type')
    expect(ran.n).toBe(1)
  }, 120_000)
})

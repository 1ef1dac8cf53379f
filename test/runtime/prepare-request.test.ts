/**
 * A run is prepared and compiled in ONE request to the checker's thread (normalise, the source's shape,
 * compiling, the output's shape; with the check on, the check too), counted on the real pool and thread;
 * with the check off, none for a program the host's gate admits (prepared in the host's thread).
 * A program deeper than oxc is trusted with (it recurses on the native stack) goes to esbuild, and what the
 * thread compiled still maps runtime errors and logged stacks to the user’s lines. A check past its budget runs
 * what the thread compiled before the check: still one request.
 */
import { describe, expect, it } from 'vitest'
import { createProgramPrep } from '../../runtime/typecheck.js'
import { poolRequestsPosted } from '../../program/typecheck-pool.js'
import { basicTools } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

describe('one checker-thread request per run', () => {
  // The check on or off, the thread prepares and compiles the program (program/prepare.ts): one request.
  it.each([
    ['off', 1],
    ['error', 1],
  ] as const)('a warm run makes exactly the requests it should (typecheck: %s, %i)', async (mode, requests) => {
    const rt = await testRuntime({ tools: basicTools, typecheck: mode })
    for (let i = 0; i < 3; i++) await rt.runCode(`return await tools.add({ a: ${i}, b: 1 })`)
    for (let i = 0; i < 3; i++) {
      const before = poolRequestsPosted()
      const r = await rt.runCode(`const xs: number[] = [${i}, 2]\nconst sum = await tools.add({ a: xs[0]!, b: xs[1]! })\nsum`)
      expect(poolRequestsPosted() - before).toBe(requests)
      expect(r.value).toBe(i + 2)
    }
  })

  it('a warm session cell makes exactly one request too', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const s = rt.session()
    await s.runCode('const base = await tools.add({ a: 1, b: 1 })')
    const before = poolRequestsPosted()
    const r = await s.runCode('base + 1')
    expect(poolRequestsPosted() - before).toBe(1)
    expect(r.value).toBe(3)
  })
})

describe('a check past its budget', () => {
  it('runs the program the thread compiled before the check, with no more requests', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error', typecheckBudgetMs: 1_500 })
    await rt.runCode('return 1') // the checker thread is up and warm
    const keys = Array.from({ length: 3000 }, (_, i) => `'k${i}'`).join(' | ')
    const hard = `type K = ${keys}\ntype M = { [P in K]: { [Q in K]: P extends Q ? 1 : 0 } }\nconst m = {} as M\nconst all: Record<K, Record<K, 0 | 1>> = m\nreturn typeof all`
    const before = poolRequestsPosted()
    const r = await rt.runCode(hard)
    // oxc compiled it before the check started, so the run needs no compile of its own (no parse tasks).
    expect(poolRequestsPosted() - before).toBe(1)
    expect(r.value, r.observation).toBe('object')
    expect(r.observation).toMatch(/the type check was skipped: it took longer than its 1500 ms budget/)
  }, 60_000)
})

describe('what the thread compiled', () => {
  it('maps a runtime error and a logged stack to the user’s lines', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const thrown = await rt.runCode("const a: number = 1\n\nif (a) throw new Error('boom')")
    expect(thrown.error).toMatchObject({ kind: 'runtime', line: 3 })
    const logged = await rt.runCode("const e = new Error('seen')\n\nconsole.log(e)\nreturn 1")
    expect(logged.logs.map((l) => l.text).join('\n')).toMatch(/program\.ts:1:\d+/)
  })

  it.each(['off', 'error'] as const)(
    'compiles a program deeper than oxc is trusted with through esbuild, and lives (typecheck: %s)',
    async (mode) => {
      const rt = await testRuntime({ tools: basicTools, typecheck: mode })
      // 10,000 terms: a tree 10,000 deep (oxc recurses on the native stack; an overflow would end this process).
      const deep = `return ${Array(10_000).fill('1').join('+')}`
      const prepared = await createProgramPrep().prepare(deep, false)
      expect(prepared.compiled).toMatchObject({ ok: true, by: 'esbuild' })
      const r = await rt.runCode(deep)
      expect(r.value, r.observation).toBe(10_000)
      const after = await rt.runCode('return await tools.add({ a: 2, b: 2 })')
      expect(after.value).toBe(4)
    },
    120_000,
  )
})

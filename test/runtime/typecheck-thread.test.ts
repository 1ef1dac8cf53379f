/**
 * The type check runs off the host's thread with a budget (issue 12.5): while pathological programs are
 * checked, other runs are answered and the host's event loop keeps turning; a check past its budget is
 * skipped with a note and the program still runs under its limits; the host never loads TypeScript.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { basicTools } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

const DIST = fileURLToPath(new URL('../../dist/runtime/index.js', import.meta.url))

/** Programs that make the compiler work for a long time (the first took ~56 s on the host's thread). */
const pathological: [string, string][] = [
  ['100 KB of 1+1+…+1', `return ${Array(50_000).fill('1').join('+')}`],
  [
    'a huge union, mapped',
    `type K = ${Array.from({ length: 3000 }, (_, i) => `'k${i}'`).join(' | ')}\ntype M = { [P in K]: { [Q in K]: P extends Q ? 1 : 0 } }\nconst m = {} as M\nreturn typeof m`,
  ],
  ['deep nesting', `return ${'['.repeat(3000)}1${']'.repeat(3000)}.length`],
]

/** Cheap to normalise and compile, ruinous to check: 5,000 × 5,000 conditional types. */
const hardToCheck = `type K = ${Array.from({ length: 5000 }, (_, i) => `'k${i}'`).join(' | ')}\ntype M = { [P in K]: { [Q in K]: P extends Q ? 1 : 0 } }\ndeclare const m: M\nconst all: M[K][K][] = Object.values(m).flatMap((row) => Object.values(row))\nreturn typeof all`

/**
 * Four ordinary runs started while `slow` is in progress (not one after another: a run may wait for a
 * second checker thread to start, and that is the scheduler's business, not a stalled host).
 */
async function answeredMeanwhile(rt: Awaited<ReturnType<typeof testRuntime>>, slow: Promise<unknown>): Promise<unknown[]> {
  const runs: Promise<unknown>[] = []
  for (let i = 0; i < 4; i++) {
    runs.push(rt.runCode(`return await tools.add({ a: ${i}, b: 1 })`).then((r) => r.value))
    await Promise.race([slow, new Promise((resolve) => setTimeout(resolve, 200))])
  }
  return Promise.all(runs)
}

describe('type check in a thread, with a budget', () => {
  it('answers other runs and keeps the host event loop turning while a program is checked past its budget', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error', typecheckBudgetMs: 2_000 })
    await rt.runCode('return 1') // the checker thread is up and warm
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    const slow = rt.runCode(hardToCheck)
    const quick = await answeredMeanwhile(rt, slow)
    const result = await slow
    delay.disable()
    expect(quick).toEqual([1, 2, 3, 4])
    expect(result.observation).toMatch(/the type check was skipped: it took longer than its 2000 ms budget; the program ran unchecked/)
    // On the host's thread this check held the loop for as long as it took (no budget could end it).
    expect(delay.max / 1e6).toBeLessThan(1_500)
  })

  it('answers other runs and keeps the host event loop turning while pathological programs are prepared and checked', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error', typecheckBudgetMs: 4_000 }) // preparing 100 KB takes a while on a loaded 2-core machine
    await rt.runCode('return 1') // the checker thread is up and warm
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    const slow = Promise.allSettled(pathological.map(([, code]) => rt.runCode(code)))
    const quick = await answeredMeanwhile(rt, slow)
    const settled = await slow
    delay.disable()
    // runCode never throws for anything a program contains.
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled'])
    const results = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    expect(quick).toEqual([1, 2, 3, 4])
    // The pathological programs ran (none is wrong; the deepest nesting may overflow the isolate's stack),
    // at least one with its check skipped past the budget.
    expect(results.map((r) => r.error?.kind).filter((k) => k === 'type' || k === 'sandbox_unavailable')).toEqual([])
    expect(results[0]?.value).toBe(50_000)
    expect(results.map((r) => r.observation).join('\n')).toMatch(
      /the type check was skipped: it took longer than its 4000 ms budget; the program ran unchecked/,
    )
    // On the host's thread the first check alone blocked the loop for tens of seconds.
    expect(delay.max / 1e6).toBeLessThan(1_500)
  })

  it('still blocks a wrong program after a thread was ended for its budget', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error', typecheckBudgetMs: 1_000 })
    await rt.runCode(pathological[0]?.[1] ?? '')
    const r = await rt.runCode('return await tools.add({ a: 1 })')
    expect(r.error?.kind).toBe('type')
    expect(r.calls).toEqual([])
  })

  it.each(['off', 'error'] as const)('fails closed when a program cannot be prepared within the budget (typecheck: %s)', async (mode) => {
    const rt = await testRuntime({ tools: basicTools, typecheck: mode, typecheckBudgetMs: 1 })
    const r = await rt.runCode(`await tools.add({ a: 1, b: 1 })\nreturn ${Array(50_000).fill('1').join('+')}`)
    expect(r.error?.kind).toBe('compile')
    expect(r.error?.message).toMatch(/too large or deeply nested to prepare within 1 ms; split it up/)
    expect(r.calls).toEqual([])
  })

  it('compiles top-level namespaces with the parsing done in the thread (typecheck: off)', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'off' })
    const r = await rt.runCode(
      'namespace Geo { export const twice = (n: number) => n * 2 }\nreturn Geo.twice(await tools.add({ a: 1, b: 1 }))',
    )
    expect(r.error).toBeNull()
    expect(r.value).toBe(4)
  })

  it.each(['off', 'error'])('never loads TypeScript on the host thread (typecheck: %s)', async (mode) => {
    const dir = mkdtempSync(join(tmpdir(), 'codeact-nots-'))
    const script = join(dir, 'probe.mjs')
    writeFileSync(
      script,
      `import { createRequire } from 'node:module'
import { createRuntime } from ${JSON.stringify(DIST)}
const tool = { name: 'add', description: 'Adds one.', parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, execute: ({ a }) => a + 1 }
const rt = await createRuntime({ typecheck: ${JSON.stringify(mode)}, tools: [tool] })
const ok = await rt.runCode('const xs = []\\nxs.push(1)\\nreturn await tools.add({ a: xs.length })')
const bad = await rt.runCode('return await tools.add({ a: "one" })')
await rt.close()
const loaded = Object.keys(createRequire(import.meta.url)('module')._cache).filter((k) => /[\\\\/]typescript[\\\\/]/.test(k))
console.log(JSON.stringify({ value: ok.value, bad: bad.error?.kind, loaded }))
`,
    )
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 })
    const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { value: number; bad: string; loaded: string[] }
    expect(out.value).toBe(2)
    expect(out.bad).toBe(mode === 'off' ? 'runtime' : 'type')
    expect(out.loaded).toEqual([])
  })
})

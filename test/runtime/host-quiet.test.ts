/**
 * The host's quiet moment (runtime/host-quiet.ts), asked for with `collectWhenIdle` (codeact's own processes:
 * CLI, MCP server, REPL): when no run has started or ended in the process for 6 s, the runtime asks V8 for
 * a full collection through `vm.measureMemory`, and a second one a second later (so V8 can shrink what
 * a burst of runs grew and give the pages back). From the user's side: it happens once per quiet period, the experimental warning Node attaches to
 * that API never reaches the user's `warning` listeners, and the timer never keeps the process alive. And an
 * embedder's process that did not ask is never touched: no collection, `process.emitWarning` never replaced.
 * A real runtime, real isolate child.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { LIBRARY, runProbe } from './fixtures/module-probe.js'

const vm = createRequire(import.meta.url)('node:vm') as typeof import('node:vm')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const QUIET_MS = 6000

const asked: unknown[] = []
const warnings: Error[] = []
const onWarning = (w: Error) => warnings.push(w)
const original = vm.measureMemory
beforeAll(() => {
  // Count the calls; the real one still runs (and would emit Node's warning).
  vm.measureMemory = ((options?: Parameters<typeof original>[0]) => {
    asked.push(options)
    return original(options)
  }) as typeof original
  syncBuiltinESMExports()
  process.on('warning', onWarning)
})
afterAll(() => {
  vm.measureMemory = original
  syncBuiltinESMExports()
  process.off('warning', onWarning)
})

describe('runtime: the host collects when quiet', () => {
  it('two eager collections per quiet period after runs, none while they come, no warning for the user', async () => {
    const rt = await createRuntime({ typecheck: 'off', collectWhenIdle: true })
    try {
      // Runs closer together than the quiet period: no collection in between.
      for (let i = 0; i < 4; i++) {
        expect(await rt.runCode(`return ${i}`)).toMatchObject({ ok: true, value: i })
        await sleep(QUIET_MS / 4)
      }
      expect(asked).toEqual([])
      // Quiet: a collection, and a second one a second later (the first frees, the second gives pages back).
      await sleep(QUIET_MS + 2500)
      const eager = { mode: 'summary', execution: 'eager' }
      expect(asked).toEqual([eager, eager])
      // Still quiet: nothing more. A run, and quiet again: the pair once more.
      await sleep(1000)
      expect(asked).toHaveLength(2)
      expect(await rt.runCode('return 5')).toMatchObject({ ok: true, value: 5 })
      await sleep(QUIET_MS + 2500)
      expect(asked).toHaveLength(4)
      await sleep(50)
      expect(warnings.filter((w) => /measureMemory/.test(String(w.message)))).toEqual([])
    } finally {
      await rt.close()
    }
  }, 45_000)

  it('a process whose emitWarning cannot be replaced: no crash and no warning when the quiet comes', async () => {
    const seen = await runProbe<{ warnings: string[]; ok: boolean }>(`
      import { createRuntime } from ${JSON.stringify(LIBRARY)}
      Object.defineProperty(process, 'emitWarning', { value: process.emitWarning, writable: false, configurable: false })
      const warnings = []
      process.on('warning', (w) => warnings.push(w.name + ': ' + w.message))
      const rt = await createRuntime({ typecheck: 'off', collectWhenIdle: true })
      const r = await rt.runCode('return 1')
      await new Promise((resolve) => setTimeout(resolve, ${QUIET_MS + 1000}))
      const again = await rt.runCode('return 2')
      await rt.close()
      console.log(JSON.stringify({ warnings, ok: r.ok && again.ok }))`)
    expect(seen).toEqual({ warnings: [], ok: true })
  }, 30_000)

  it('its timer never keeps the event loop alive: a fresh process after a run and close holds no timer', async () => {
    // A fresh process: nothing else in it arms timers (this one has vitest's).
    const left = await runProbe<string[]>(`
      import { createRuntime } from ${JSON.stringify(LIBRARY)}
      const rt = await createRuntime({ typecheck: 'off', collectWhenIdle: true })
      const r = await rt.runCode('return 1')
      if (!r.ok) throw new Error(r.observation)
      await rt.close()
      setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo())))`)
    expect(left.filter((r) => r === 'Timeout')).toEqual([])
  })

  it.each([
    ['an embedder that did not ask: nothing is touched', {}, { asked: 0, swaps: 0 }],
    [
      'with collectWhenIdle: two collections, emitWarning swapped and put back each time',
      { collectWhenIdle: true },
      { asked: 2, swaps: 4 },
    ],
  ])(
    '%s (a fresh process: its own emitWarning and measureMemory watched)',
    async (_, options, expected) => {
      const seen = await runProbe<{ asked: number; swaps: number; same: boolean; ok: boolean }>(`
      import { createRequire, syncBuiltinESMExports } from 'node:module'
      const vm = createRequire(import.meta.url)('node:vm')
      const measure = vm.measureMemory
      let asked = 0
      vm.measureMemory = (o) => { asked++; return measure(o) }
      syncBuiltinESMExports()
      const own = process.emitWarning
      let current = own
      let swaps = 0
      Object.defineProperty(process, 'emitWarning', { configurable: true, get: () => current, set: (f) => { swaps++; current = f } })
      const { createRuntime } = await import(${JSON.stringify(LIBRARY)})
      const rt = await createRuntime({ typecheck: 'off', ...${JSON.stringify(options)} })
      let ok = true
      for (let i = 0; i < 3; i++) ok = ok && (await rt.runCode('return ' + i)).ok
      await new Promise((resolve) => setTimeout(resolve, ${QUIET_MS + 1500}))
      await rt.close()
      console.log(JSON.stringify({ asked, swaps, same: process.emitWarning === own, ok }))`)
      expect(seen).toEqual({ ...expected, same: true, ok: true })
    },
    30_000,
  )
})

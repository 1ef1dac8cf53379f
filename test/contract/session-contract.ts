/**
 * The runtime's side of the session contract, on every backend that serves sessions: what `rt.session()`
 * makes of a realm (names declared again, a throwing run's assignments, two sessions at once, reset). A
 * realm kept, lost and replayed at the seam is test/contract/seam's. A backend test file calls
 * `sessionContract(name, options)` next to `sandboxContract`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { basicTools } from '../support/tools.js'
import { type ContractOptions, runtimeOptions } from './contract.js'

export function sessionContract(name: string, options: ContractOptions): void {
  describe(`sandbox contract, sessions: ${name}`, () => {
    let rt: Runtime
    beforeAll(async () => {
      await options.setup?.()
      rt = await createRuntime({ ...runtimeOptions(options), typecheck: 'off', tools: basicTools, limits: { timeoutMs: 8_000 } })
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
    })

    it('lets a run declare a name again and keeps what a throwing run assigned', async () => {
      const s = rt.session()
      await s.runCode('const v = 1\nlet before = 0')
      await s.runCode('const v = "two"')
      const thrown = await s.runCode('before = 5\nthrow new Error("mid-run")\nbefore = 6')
      expect(thrown.error?.message).toContain('mid-run')
      expect((await s.runCode('return [v, before]')).value).toEqual(['two', 5])
    })

    it('keeps two sessions with the same names apart, run at the same time', async () => {
      const [a, b] = [rt.session(), rt.session()]
      await Promise.all([a.runCode('let n = 1'), b.runCode('let n = 1000')])
      const [ra, rb] = await Promise.all([
        a.runCode('for (let i = 0; i < 20; i++) n += await tools.add({ a: 0, b: 1 })\nreturn n'),
        b.runCode('for (let i = 0; i < 20; i++) n -= await tools.add({ a: 0, b: 1 })\nreturn n'),
      ])
      expect([ra.value, rb.value]).toEqual([21, 980])
    })

    it('forgets everything on reset', async () => {
      const s = rt.session()
      await s.runCode('const gone = 1')
      await s.reset()
      expect((await s.runCode("return 'gone' in globalThis")).value).toBe(false)
    })
  })
}

/**
 * The session part of the sandbox contract: what every backend that implements `endSession` passes, through
 * `createRuntime` and through the seam itself (`request.session`, `session_lost`). A backend test file calls
 * `sessionContract(name, options)` next to `sandboxContract`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import type { SandboxHost, SandboxRunRequest } from '../../sandbox/types.js'
import { basicTools } from '../support/tools.js'
import type { ContractOptions } from './contract.js'

export function sessionContract(name: string, options: ContractOptions): void {
  describe(`sandbox contract, sessions: ${name}`, () => {
    let rt: Runtime
    beforeAll(async () => {
      await options.setup?.()
      rt = await createRuntime({ ...options.runtime, typecheck: 'off', tools: basicTools, limits: { timeoutMs: 8_000 } })
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
    })

    it('keeps bindings across runs as live values', async () => {
      const s = rt.session()
      await s.runCode(
        'const sums = new Map()\nlet calls = 0\nfunction add(k, v) { calls++; sums.set(k, (sums.get(k) ?? 0) + v) }\nclass P { constructor(x) { this.x = x } }',
      )
      await s.runCode('add("a", await tools.add({ a: 2, b: 3 }))\nadd("a", 1)\nconst p = new P(7)')
      const r = await s.runCode('return [sums.get("a"), calls, p instanceof P, p.x]')
      expect(r.value).toEqual([6, 2, true, 7])
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

    it('answers session_lost for a realm it does not hold, and after endSession, running nothing', async () => {
      const sandbox = rt.sandbox
      expect(typeof sandbox.endSession).toBe('function')
      let calls = 0
      const host: SandboxHost = {
        callTool: async () => {
          calls++
          return JSON.stringify({ ok: true, value: 1 })
        },
        log: () => {},
      }
      const request = (id: string, realm: 'new' | 'existing', js: string): SandboxRunRequest => ({
        runId: `contract_${id}_${realm}`,
        js,
        toolNames: ['add'],
        limits: { timeoutMs: 5_000, deadlineMs: 10_000, memoryMb: 64, maxOutputBytes: 10_000 },
        session: { id, realm },
        entropy: { seed: 'contract' },
      })
      const signal = new AbortController().signal
      const body = (text: string) => `(async function () { ${text} })`
      const unknown = await sandbox.run(request('never-seen', 'existing', body('await tools.add({}); return 1')), host, signal)
      expect(unknown).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
      const made = await sandbox.run(request('s-end', 'new', body('globalThis.kept = 41; return Math.random()')), host, signal)
      expect(made.ok).toBe(true)
      const kept = await sandbox.run(request('s-end', 'existing', body('return ++globalThis.kept')), host, signal)
      expect(kept).toMatchObject({ ok: true, valueJson: '42' })
      // The same seed gives the same Math.random in a new realm.
      const again = await sandbox.run(request('s-seed', 'new', body('return Math.random()')), host, signal)
      expect(again.ok && again.valueJson).toBe(made.ok && made.valueJson)
      await sandbox.endSession!('s-end')
      await sandbox.endSession!('s-end')
      const after = await sandbox.run(request('s-end', 'existing', body('await tools.add({}); return globalThis.kept')), host, signal)
      expect(after).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
      expect(calls).toBe(0)
      await sandbox.endSession!('s-seed')
    })
  })
}

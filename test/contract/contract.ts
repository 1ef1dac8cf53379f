/**
 * The runtime's side of the contract: the same programs through `createRuntime`, the same expected
 * RunResults, on every backend — what the runtime makes of a backend's outcomes (observations, the calls
 * it lists, the log's invariants, the workspace tools). What a backend itself promises at the seam is
 * test/contract/seam's. A backend test file calls `sandboxContract(name, options)`; nothing here knows a backend.
 */
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import { basicTools, timedTools, type Timeline } from '../support/tools.js'
import { unmatchedCalls } from '../support/runtime.js'

export interface ContractOptions {
  /** Extra runtime options that select the backend (`sandbox: 'docker'`, …); a function for a new instance per runtime. */
  runtime: Pick<RuntimeOptions, 'sandbox' | 'docker'> | (() => Pick<RuntimeOptions, 'sandbox' | 'docker'>)
  /** Runs once before the suite (e.g. build the image). */
  setup?: () => Promise<void>
  /** Makes the workspace usable by the backend's user (a container runs as an unprivileged uid). */
  prepareWorkspace?: (dir: string) => void
}

export function sandboxContract(name: string, options: ContractOptions): void {
  describe(`sandbox contract: ${name}`, () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const workspace = mkdtempSync(join(tmpdir(), `codeact-contract-${name}-`))
    let rt: Runtime
    let wrt: Runtime
    beforeAll(async () => {
      await options.setup?.()
      mkdirSync(join(workspace, 'docs'))
      mkdirSync(join(workspace, 'locked'))
      writeFileSync(join(workspace, 'docs', 'a.txt'), 'alpha\n')
      writeFileSync(join(workspace, 'locked', 'keep.txt'), 'keep\n')
      options.prepareWorkspace?.(workspace)
      rt = await createRuntime({
        ...runtimeOptions(options),
        typecheck: 'off',
        tools: [...basicTools, ...timedTools(timeline)],
        limits: { timeoutMs: 8_000 },
      })
      wrt = await createRuntime({ ...runtimeOptions(options), typecheck: 'off', workspace: { root: workspace, readOnly: ['locked'] } })
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
      await wrt?.close()
    })

    it('returns the value, logs and calls of a program', async () => {
      const r = await rt.runCode('console.log("n", 1)\nconst s = await tools.add({ a: 2, b: 3 })\nreturn { s, list: [1, "two", null] }')
      expect(r).toMatchObject({ ok: true, error: null, value: { s: 5, list: [1, 'two', null] }, logs: [{ level: 'log', text: 'n 1' }] })
      expect(r.calls).toMatchObject([{ name: 'add', args: { a: 2, b: 3 }, ok: true, result: 5 }])
      expect(r.observation).toBe('n 1\n\nReturn value:\n{"s":5,"list":[1,"two",null]}')
    })

    it('rejects a failed call with a ToolCallError and lists it even when caught', async () => {
      const r = await rt.runCode(
        `try { await tools.read_note({ key: 'missing' }) } catch (e) { return [e.name, e.toolName, e.code, e.message, e instanceof ToolCallError] }`,
      )
      expect(r.value).toEqual(['ToolCallError', 'read_note', 'ENOENT', 'no note "missing"', true])
      expect(r.observation).toContain('→ ENOENT: no note "missing"')
    })

    it('times out a promise that never settles, naming the pending call', async () => {
      // Waiting on a tool call is not the program's time; the run's deadline bounds it.
      const r = await rt.runCode('await tools.sleep({ id: "forever", ms: 600000 })', { limits: { timeoutMs: 1000, deadlineMs: 2500 } })
      expect(r.error?.kind).toBe('timeout')
      expect(r.error?.message).toContain('deadline')
      expect(r.error?.message).toContain('still waiting on: sleep')
      expect(unmatchedCalls(r.events)).toEqual([])
    })

    it('caps console output with a marker', async () => {
      const r = await rt.runCode('for (let i = 0; i < 5000; i++) console.log("line", i)\nreturn "ok"', { limits: { maxOutputBytes: 2000 } })
      expect(r.value).toBe('ok')
      expect(r.logs.some((l) => l.text.includes('output cut'))).toBe(true)
      expect(r.observation).toMatch(/bytes of console output were dropped/)
    })

    it('aborts on the caller signal, answering every pending call', async () => {
      const controller = new AbortController()
      // Abort once both calls are under way, whatever the backend's start-up time.
      let started = 0
      const stop = rt.on('event', (e) => e.type === 'tool/call' && ++started === 2 && setTimeout(() => controller.abort(), 50))
      const r = await rt.runCode('await Promise.all([tools.sleep({ id: "p1", ms: 600000 }), tools.sleep({ id: "p2", ms: 600000 })])', {
        signal: controller.signal,
      })
      stop()
      expect(r.error?.kind).toBe('aborted')
      expect(r.calls).toHaveLength(2)
      expect(unmatchedCalls(r.events)).toEqual([])
    })

    it('sends the true arguments even when the program poisons JSON and Promise', async () => {
      const r = await rt.runCode(`
        JSON.stringify = () => '{"a":0,"b":0}'
        const then = Promise.prototype.then
        Promise.prototype.then = function (f, g) { return then.call(this, () => f?.(666), g) }
        return await tools.add({ a: 20, b: 22 })`)
      expect(r.calls[0]?.args).toEqual({ a: 20, b: 22 })
      expect(r.calls[0]?.result).toBe(42)
    })

    it('overlaps Promise.all calls and records them in issue order', async () => {
      const r = await rt.runCode(`return await Promise.all(['c1', 'c2', 'c3'].map((id, i) => tools.sleep({ id, ms: 300 - i * 100 })))`)
      expect(r.value).toEqual(['c1', 'c2', 'c3'])
      expect(r.calls.map((c) => (c.args as { id: string }).id)).toEqual(['c1', 'c2', 'c3'])
      expect(timeline.peak).toBeGreaterThanOrEqual(3)
    })

    it('runs workspace tools on the workspace and answers EROFS and EACCES in the same dialect', async () => {
      const r = await wrt.runCode(`
        const text = await tools.read_file({ path: 'docs/a.txt' })
        await tools.write_file({ path: 'docs/b.txt', content: text.toUpperCase() })
        const codes = []
        for (const attempt of [
          () => tools.write_file({ path: 'locked/keep.txt', content: 'changed' }),
          () => tools.read_file({ path: '../outside.txt' }),
          () => tools.read_file({ path: 'docs/none.txt' }),
        ]) { try { await attempt() } catch (e) { codes.push(e.code) } }
        return codes`)
      expect(r.value).toEqual(['EROFS', 'EACCES', 'ENOENT'])
      expect(readFileSync(join(workspace, 'docs', 'b.txt'), 'utf8')).toBe('ALPHA\n')
      expect(readFileSync(join(workspace, 'locked', 'keep.txt'), 'utf8')).toBe('keep\n')
      expect(r.observation).toMatch(/Denied \(2\):/)
      expect(existsSync(join(workspace, '..', 'outside.txt'))).toBe(false)
    })
  })
}

/** The runtime options selecting the backend, a new instance each time where the options are a function. */
export function runtimeOptions(options: ContractOptions): Pick<RuntimeOptions, 'sandbox' | 'docker'> {
  return typeof options.runtime === 'function' ? options.runtime() : options.runtime
}

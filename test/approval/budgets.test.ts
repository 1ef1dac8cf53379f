/**
 * Two budgets, through a real isolate: `timeoutMs` is the program's own time (waits on tool calls are not
 * charged), `deadlineMs` bounds the whole run; each timeout says which budget ran out and what raises it.
 */
import { describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { request as sandboxRequest } from '../sandbox/fixtures/isolate-host.js'
import { testRuntime } from '../support/runtime.js'

const sleepTool: AnyToolDefinition = {
  name: 'sleep',
  description: 'Wait like a long command does.',
  parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  execute: async ({ ms }: { ms: number }, ctx) => {
    await new Promise((resolve) => {
      const t = setTimeout(resolve, ms)
      ctx.signal.addEventListener('abort', () => clearTimeout(t))
    })
    return { slept: ms }
  },
}

describe('budgets', () => {
  it('a long tool call inside a short program just works (the wait is not program time)', async () => {
    const rt = await testRuntime({ tools: [sleepTool], limits: { timeoutMs: 500 } })
    const result = await rt.runCode(`const a = await tools.sleep({ ms: 1500 }); const b = await tools.sleep({ ms: 600 }); return [a, b]`)
    expect(result.error).toBeNull()
    expect(result.value).toEqual([{ slept: 1500 }, { slept: 600 }])
  })

  it('parallel long calls are not charged either, and the clock runs again once they are answered', async () => {
    const rt = await testRuntime({ tools: [sleepTool], limits: { timeoutMs: 400 } })
    const result = await rt.runCode(`
      await Promise.all([tools.sleep({ ms: 900 }), tools.sleep({ ms: 300 })])
      await new Promise(() => {})   // waits on nothing but itself: program time`)
    expect(result.error?.kind).toBe('timeout')
    expect(result.error?.message).toMatch(/used its 400 ms of program time .*raise timeoutMs \(--timeout\)/)
    expect(result.calls.map((c) => c.ok)).toEqual([true, true])
  })

  it('busy JS beside a pending call is still charged (CPU time)', async () => {
    const rt = await testRuntime({ tools: [sleepTool], limits: { timeoutMs: 500 } })
    const result = await rt.runCode(`const p = tools.sleep({ ms: 20000 }); for (;;) {}`)
    expect(result.error?.kind).toBe('timeout')
    expect(result.error?.message).toContain('--timeout')
  })

  it('deadlineMs bounds the whole run, tool waits included, and says so', async () => {
    const rt = await testRuntime({ tools: [sleepTool], limits: { timeoutMs: 30_000, deadlineMs: 800 } })
    const result = await rt.runCode(`await tools.sleep({ ms: 20000 }); return 'never'`)
    expect(result.error?.kind).toBe('timeout')
    expect(result.error?.message).toMatch(/passed its 800 ms deadline .*raise deadlineMs \(--deadline\); still waiting on: sleep/)
    expect(result.calls).toHaveLength(1)
    expect(result.calls[0]!.error?.code).toBe('ECANCELED')
  })

  it('the sandbox seam alone: a host that answers late is not charged, a deadline is reported as one', async () => {
    const sandbox = createIsolateSandbox()
    try {
      const host = {
        callTool: () => new Promise<string>((r) => setTimeout(() => r('{"ok":true,"value":7}'), 900)),
        log: () => {},
      }
      const request = (body: string, deadlineMs?: number) =>
        sandboxRequest(body, { timeoutMs: 300, ...(deadlineMs ? { deadlineMs } : {}) }, ['t'])
      const ok = await sandbox.run(request('return await tools.t({})'), host, new AbortController().signal)
      expect(ok).toMatchObject({ ok: true, valueJson: '7' })
      const late = await sandbox.run(request('return await tools.t({})', 500), host, new AbortController().signal)
      expect(late).toMatchObject({ ok: false, error: { kind: 'timeout', budget: 'deadline' } })
    } finally {
      await sandbox.close()
    }
  })

  it('the defaults: a 10-minute deadline, 30 s of program time', async () => {
    const rt = await testRuntime()
    expect(rt.limits).toMatchObject({ timeoutMs: 30_000, deadlineMs: 600_000 })
  })
})

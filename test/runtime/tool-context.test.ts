/**
 * What a tool is given (`ToolContext`), seen from a tool inside a program's calls: the call's id, its run and
 * origin as the log has them; `concludeTurn` and `reportDenial` work when taken off the context; `signal` is
 * the same signal each time it is read, aborted once the call times out; `services` is there for every call.
 */
import { describe, expect, it } from 'vitest'
import type { AnyToolDefinition, ToolContext } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

describe('the context a tool is given', () => {
  it('names the call as the log does, and its functions work taken off the context', async () => {
    const seen: { callId: string; parentId: string | undefined; origin: string; services: boolean }[] = []
    const report: AnyToolDefinition = {
      name: 'report',
      description: 'Reports a refusal it met.',
      parameters: { type: 'object' },
      execute: (_args, ctx: ToolContext) => {
        const { reportDenial, callId, parentId, origin } = ctx
        seen.push({ callId, parentId, origin, services: typeof ctx.services === 'object' && ctx.services !== null })
        reportDenial({ code: 'EROFS', message: 'Read-only file system' })
        return Promise.resolve(1)
      },
    }
    const rt = await testRuntime({ tools: [report] })
    const result = await rt.runCode('const [a, b] = await Promise.all([tools.report({}), tools.report({})]); return a + b')
    expect(result.value).toBe(2)
    const calls = result.events.filter((e) => e.type === 'tool/call').map((e) => e.data as { id: string; parentId?: string })
    expect(seen).toEqual(calls.map((c) => ({ callId: c.id, parentId: c.parentId, origin: 'code', services: true })))
    const denials = result.events.filter((e) => e.type === 'denial').map((e) => e.data as { callId?: string; code: string })
    expect(denials.map((d) => [d.callId, d.code])).toEqual(calls.map((c) => [c.id, 'EROFS']))
    expect(result.observation).toMatch(/Denied \(2\)/)
  })

  it('gives one signal per call, read as often as the tool likes, aborted when the call times out', async () => {
    let same: boolean | undefined
    let abortedAtStart: boolean | undefined
    const slow: AnyToolDefinition = {
      name: 'slow',
      description: 'Waits for its signal.',
      parameters: { type: 'object' },
      timeoutMs: 50,
      execute: (_args, ctx: ToolContext) => {
        const first = ctx.signal
        same = first === ctx.signal
        abortedAtStart = ctx.signal.aborted
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(String(ctx.signal.reason))))
      },
    }
    const rt = await testRuntime({ tools: [slow] })
    const result = await rt.runCode('try { await tools.slow({}) } catch (e) { return String(e.message) }')
    expect(same).toBe(true)
    expect(abortedAtStart).toBe(false)
    expect(String(result.value)).toMatch(/timed out after 50 ms/)
  })
})

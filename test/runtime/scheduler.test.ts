import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Sandbox, SandboxHost } from '../../sandbox/types.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { AnyToolDefinition, ToolContext } from '../../vocabulary/types.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

/** Answers after `ms` (0–3), fails every 50th call, so calls finish out of issue order and some fail. */
const echo = defineTool({
  name: 'echo',
  description: 'Echoes its number after a few milliseconds; every 50th call fails.',
  parameters: z.object({ n: z.number().int(), ms: z.number().int().min(0) }),
  execute: async ({ n, ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    if (n % 50 === 49) throw Object.assign(new Error(`no ${n}`), { code: 'ENOPE' })
    return { n }
  },
})

describe('the scheduler under a flood and at the edges of a run', () => {
  it('1,000 parallel calls: every call once in issue order in the log, the calls and the observation', async () => {
    const rt = await testRuntime({ tools: [echo], limits: { timeoutMs: 60_000 } })
    const r = await rt.runCode(`
      const settled = await Promise.allSettled(Array.from({ length: 1000 }, (_, n) => tools.echo({ n, ms: (n * 7) % 4 })))
      return settled.map((s, n) => (s.status === 'fulfilled' ? s.value.n : -n))`)
    expect(r.error, r.observation).toBeNull()
    const value = r.value as number[]
    expect(value).toEqual(Array.from({ length: 1000 }, (_, n) => (n % 50 === 49 ? -n : n)))
    const runId = (r.events[0]!.data as { runId: string }).runId
    const ids = Array.from({ length: 1000 }, (_, i) => `${runId}.${i + 1}`)
    expect(r.calls.map((c) => c.id)).toEqual(ids)
    expect(r.calls.map((c) => (c.args as { n: number }).n)).toEqual(Array.from({ length: 1000 }, (_, n) => n))
    const of = (type: string) => r.events.filter((e) => e.type === type).map((e) => (e.data as { id: string }).id)
    expect(of('tool/call')).toEqual(ids)
    expect(of('tool/result')).toEqual(ids)
    expect(unmatchedCalls(r.events)).toEqual([])
    // The observation lists the failed calls in issue order (the first 20 of them).
    expect(r.observation).toContain('Failed tool calls (20 of 1000):')
    const listed = [...r.observation.matchAll(/- echo\(\{"n":(\d+),/g)].map((m) => Number(m[1]))
    expect(listed).toEqual(Array.from({ length: 20 }, (_, i) => i * 50 + 49))
  })

  it("a tool that changes the object it returned changes neither the log nor the program's copy", async () => {
    const kept: { items: number[] }[] = []
    const leaky = defineTool({
      name: 'leaky',
      description: 'Returns an object, then keeps changing it.',
      parameters: z.object({}),
      execute: async () => {
        const out = { items: [1, 2, 3] }
        kept.push(out)
        setTimeout(() => out.items.push(99), 0)
        return out
      },
    })
    const rt = await testRuntime({ tools: [leaky] })
    const r = await rt.runCode(`
      const a = await tools.leaky({})
      await new Promise((resolve) => setTimeout(resolve, 20))
      return a`)
    expect(r.value).toEqual({ items: [1, 2, 3] })
    expect(kept[0]!.items).toEqual([1, 2, 3, 99])
    expect(r.calls[0]!.result).toEqual({ items: [1, 2, 3] })
    const logged = r.events.find((e) => e.type === 'tool/result')!.data as { result: { value: unknown } }
    expect(logged.result.value).toEqual({ items: [1, 2, 3] })
  })

  it('a big result reaches the program whole, and a post-execute hook that edits it in place is what the program sees', async () => {
    const big = defineTool({
      name: 'big',
      description: 'Returns 2,000 lines.',
      parameters: z.object({ tag: z.boolean() }),
      execute: () => ({ lines: Array.from({ length: 2000 }, (_, i) => `line ${i} "quoted" \u2028`) }),
    })
    const rt = await testRuntime({ tools: [big] })
    const plain = await rt.runCode('const r = await tools.big({ tag: false }); return [r.lines.length, r.lines[1999]]')
    expect(plain.value).toEqual([2000, 'line 1999 "quoted" \u2028'])
    rt.hooks.on('post-execute', (call, result) => {
      if (result.ok && (call.args as { tag: boolean }).tag) (result.value as { lines: string[] }).lines.push('edited')
    })
    const edited = await rt.runCode('const r = await tools.big({ tag: true }); return [r.lines.length, r.lines[2000]]')
    expect(edited.value).toEqual([2001, 'edited'])
    expect((edited.calls[0]!.result as { lines: string[] }).lines).toHaveLength(2001)
  })

  it('a tool that reads ctx.signal only after its timeout finds it aborted', async () => {
    let seen: { aborted: boolean; reason: string } | undefined
    const late = defineTool({
      name: 'late',
      description: 'Ignores its signal until long after its timeout.',
      parameters: z.object({}),
      timeoutMs: 50,
      execute: async (_args, ctx: ToolContext) => {
        await new Promise((resolve) => setTimeout(resolve, 300))
        seen = { aborted: ctx.signal.aborted, reason: String(ctx.signal.reason) }
        return 'done'
      },
    })
    const rt = await testRuntime({ tools: [late] })
    const r = await rt.runCode('try { await tools.late({}) } catch (e) { return e.code }')
    expect(r.value).toBe('ETIMEDOUT')
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(seen).toEqual({ aborted: true, reason: 'Error: timeout' })
  })

  it('synchronous tools keep issue order beside slow ones and do not hold pool places', async () => {
    let running = 0
    let peak = 0
    const slow = defineTool({
      name: 'slow',
      description: 'Takes 30 ms.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        peak = Math.max(peak, ++running)
        await new Promise((resolve) => setTimeout(resolve, 30))
        running--
        return n
      },
    })
    const quick = defineTool({
      name: 'quick',
      description: 'Answers at once.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => n,
    })
    const rt = await testRuntime({ tools: [slow, quick], limits: { maxParallelToolCalls: 2 } })
    const r = await rt.runCode(`
      return await Promise.all(Array.from({ length: 12 }, (_, n) => (n % 3 === 0 ? tools.slow({ n }) : tools.quick({ n }))))`)
    expect(r.value).toEqual(Array.from({ length: 12 }, (_, n) => n))
    expect(peak).toBe(2)
    const results = r.events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { id: string }).id)
    expect(results).toEqual(r.calls.map((c) => c.id))
  })
})

/** A backend (the seam's public contract) that leaves calls behind: it answers while one is still running, or calls after it answered. */
function leavingSandbox(mode: 'answer-early' | 'call-late', host: { late?: Promise<string> }): Sandbox {
  return {
    name: 'leaving',
    capabilities: { nodeModules: false, effectsOnlyThroughHost: false, programWrites: false, sessions: false, stagesItself: false },
    start: async () => {},
    run: async (_request, h: SandboxHost) => {
      if (mode === 'answer-early') {
        void h.callTool('hang', '{}')
        await new Promise((resolve) => setTimeout(resolve, 20))
      } else {
        setTimeout(() => (host.late = h.callTool('count', '{}')), 20)
      }
      return { ok: true, valueJson: '1', droppedOutputBytes: 0 }
    },
    close: async () => {},
  }
}

describe('calls a backend leaves behind when its run ends', () => {
  it('a call still running when the sandbox answers is cancelled, and logged with its result', async () => {
    let sawAbort = false
    const hang: AnyToolDefinition = {
      name: 'hang',
      description: 'Waits for its signal.',
      parameters: { type: 'object' },
      execute: (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((sawAbort = true)))),
    }
    const rt = await testRuntime({ tools: [hang], sandbox: leavingSandbox('answer-early', {}) })
    const r = await rt.runCode('return 1')
    expect(r.value).toBe(1)
    expect(sawAbort).toBe(true)
    expect(r.calls).toHaveLength(1)
    expect(r.calls[0]!.error?.code).toBe('ECANCELED')
    expect(unmatchedCalls(r.events)).toEqual([])
  })

  it('a call made after the sandbox answered is refused and never runs', async () => {
    let ran = 0
    const count: AnyToolDefinition = { name: 'count', description: 'Counts.', parameters: { type: 'object' }, execute: () => ++ran }
    const late: { late?: Promise<string> } = {}
    const rt = await testRuntime({ tools: [count], sandbox: leavingSandbox('call-late', late) })
    const r = await rt.runCode('return 1')
    expect(r.value).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(JSON.parse(await late.late!)).toEqual({ ok: false, error: { code: 'ECANCELED', message: 'the run is over' } })
    expect(ran).toBe(0)
    expect(rt.log.all().filter((e) => e.type === 'tool/call')).toHaveLength(0)
  })
})

describe('the deadlines of calls still open at the end of their turn', () => {
  it('1,000 open calls of one program share a few deadline timers, not one each', async () => {
    // Answers two turns of the event loop later, with no timer of its own: open when the calls are armed.
    const later: AnyToolDefinition = {
      name: 'later',
      description: 'Answers two turns later.',
      parameters: { type: 'object' },
      execute: () => new Promise((resolve) => setImmediate(() => setImmediate(() => resolve(1)))),
    }
    const rt = await testRuntime({ tools: [later], limits: { maxParallelToolCalls: 4096 } })
    await rt.runCode('return await tools.later({})')
    const made = { timers: 0 }
    const real = globalThis.setTimeout
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      made.timers++
      return real(...args)
    }) as typeof setTimeout
    try {
      const r = await rt.runCode('return (await Promise.all(Array.from({ length: 1000 }, () => tools.later({})))).length')
      expect(r.value, r.observation).toBe(1000)
    } finally {
      globalThis.setTimeout = real
    }
    // A timer per call made 1,000 and more; the run's own (its backstop, the sandbox's) are a few.
    expect(made.timers).toBeLessThan(50)
  })

  it('calls started in one turn with different timeouts each keep their own deadline', async () => {
    const slowTool = (name: string, timeoutMs: number): AnyToolDefinition => ({
      name,
      description: `Takes 300 ms; its timeout is ${timeoutMs} ms.`,
      parameters: { type: 'object' },
      timeoutMs,
      execute: () => new Promise((resolve) => setTimeout(() => resolve(name), 300)),
    })
    const rt = await testRuntime({ tools: [slowTool('short', 40), slowTool('long', 2_000)] })
    const r = await rt.runCode(`
      const settled = await Promise.allSettled([tools.long({}), tools.short({}), tools.long({}), tools.short({})])
      return settled.map((s) => (s.status === 'fulfilled' ? s.value : s.reason.code))`)
    // One deadline for the group would time out all four (40 ms) or none (2 s).
    expect(r.value, r.observation).toEqual(['long', 'ETIMEDOUT', 'long', 'ETIMEDOUT'])
  })
})

import { describe, expect, it } from 'vitest'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const slow = {
  name: 'slow',
  description: 'Waits for a long time unless cancelled.',
  parameters: { type: 'object' },
  execute: (_: unknown, ctx: { signal: AbortSignal }) =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, 60_000)
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t)
        resolve('cancelled')
      })
    }),
}
const noop = { name: 'noop', description: '', parameters: { type: 'object' }, execute: () => null }

describe('limits: each is a clear run error, never a host crash', () => {
  it('stops a synchronous infinite loop at the wall-clock timeout', async () => {
    const rt = await testRuntime({ limits: { timeoutMs: 500 } })
    const r = await rt.runCode('while (true) {}')
    expect(r.error?.kind).toBe('timeout')
    expect(r.error?.message).toContain('500 ms')
    expect((await rt.runCode('return 1')).value).toBe(1)
  })

  it('stops a promise that never settles, and says which tool calls were pending', async () => {
    // A pending tool call is not program time: the run's deadline stops it.
    const rt = await testRuntime({ tools: [slow], limits: { timeoutMs: 500, deadlineMs: 1500 } })
    const r = await rt.runCode('await tools.slow({})')
    expect(r.error?.kind).toBe('timeout')
    expect(r.error?.message).toContain('still waiting on: slow')
    expect(unmatchedCalls(r.events)).toEqual([])
    expect(r.calls[0]).toMatchObject({ name: 'slow' })
    const never = await rt.runCode('await new Promise(() => {})')
    expect(never.error?.kind).toBe('timeout')
  })

  it('throws the isolate away at the memory limit and lives on', async () => {
    const rt = await testRuntime({ limits: { memoryMb: 32, timeoutMs: 10_000 } })
    const r = await rt.runCode('const a: string[] = []; while (true) a.push("x".repeat(1000) + a.length)')
    expect(r.error?.kind).toBe('memory')
    expect(r.error?.message).toMatch(/32 MB/)
    expect((await rt.runCode('return "alive"')).value).toBe('alive')
  })

  it('survives an allocation that aborts V8 (the isolate host process dies, not the caller)', async () => {
    const rt = await testRuntime({ limits: { memoryMb: 64, timeoutMs: 20_000 } })
    const r = await rt.runCode('new Array(1e9).fill(1)')
    expect(r.ok).toBe(false)
    expect(['memory', 'runtime']).toContain(r.error?.kind)
    expect((await rt.runCode('return "alive"')).value).toBe('alive')
  })

  it('cuts console output at the cap with a visible marker', async () => {
    const rt = await testRuntime({ limits: { maxOutputBytes: 1000 } })
    const r = await rt.runCode('for (let i = 0; i < 10000; i++) console.log("line " + i)\nreturn "done"')
    expect(r.ok).toBe(true)
    expect(r.value).toBe('done')
    const kept = r.logs.filter((l) => l.text.startsWith('line ')).map((l) => l.text.length + 1)
    expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000)
    expect(r.logs.some((l) => l.text.includes('output cut'))).toBe(true)
    expect(r.observation).toMatch(/bytes of console output were dropped/)
  })

  it('stops a program that makes more tool calls than the cap', async () => {
    const rt = await testRuntime({ tools: [noop], limits: { maxToolCalls: 50 } })
    const r = await rt.runCode('while (true) { try { await tools.noop({}) } catch {} }')
    expect(r.error).toMatchObject({ kind: 'runtime', code: 'EDQUOT' })
    expect(r.calls.length).toBe(50)
    expect(unmatchedCalls(r.events)).toEqual([])
  })

  it('refuses a program over the source size limit before compiling it', async () => {
    const rt = await testRuntime({ limits: { maxSourceBytes: 1000 } })
    const r = await rt.runCode('// ' + 'x'.repeat(2000))
    expect(r.error?.kind).toBe('compile')
    expect(r.error?.message).toContain('1000-byte source limit')
  })

  it('aborts a run from the caller, answering the pending call', async () => {
    const rt = await testRuntime({ tools: [slow] })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const r = await rt.runCode('await tools.slow({})', { signal: controller.signal })
    expect(r.error?.kind).toBe('aborted')
    expect(unmatchedCalls(r.events)).toEqual([])
  })

  it('an abort that lands while the program is still being checked cancels it: it never runs', async () => {
    // A REPL's Ctrl-C right after Enter: the program is in the checker's thread when the signal aborts.
    const rt = await testRuntime({ limits: { timeoutMs: 5000 } })
    const controller = new AbortController()
    const off = rt.on('event', (e) => {
      if (e.type === 'run/start') queueMicrotask(() => controller.abort())
    })
    const r = await rt.runCode('while (true) {}', { signal: controller.signal })
    off()
    expect(r.error).toEqual({ kind: 'aborted', message: 'the run was cancelled before it started' })
  })

  it('caps the observation text with a marker', async () => {
    const rt = await testRuntime({ limits: { maxObservationBytes: 2000 } })
    const r = await rt.runCode('return "y".repeat(50_000)')
    expect(Buffer.byteLength(r.observation)).toBeLessThanOrEqual(2000)
    expect(r.observation).toContain('characters cut to fit the observation cap')
  })
})

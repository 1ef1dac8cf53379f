/** Limits for batch work: sized for 10,000 files, one flag each, checked and clamped, named when they stop a run. */
import { describe, expect, it } from 'vitest'
import { limitsFromFlags, parseQuantity } from '../../cli/limit-flags.js'
import { DEFAULT_LIMITS, MAX_TIMEOUT_MS, resolveLimits } from '../../runtime/limits.js'
import { testRuntime } from '../support/runtime.js'
import { codeact } from './helpers.js'

describe('limits at the API', () => {
  it('defaults let a 10,000-file read+write batch fit in the call count', () => {
    expect(DEFAULT_LIMITS.maxToolCalls).toBeGreaterThanOrEqual(20_000 + 100)
  })

  it('refuses nonsense with a TypeError naming the limit', () => {
    for (const bad of [Number.NaN, -1, 0, 1.5, '100', null, true]) {
      expect(() => resolveLimits({ maxToolCalls: bad as never })).toThrow(/limits\.maxToolCalls must/)
    }
    expect(() => resolveLimits({ timeoutMs: -5 })).toThrow(/limits\.timeoutMs must be positive/)
    expect(() => resolveLimits({ memoryMb: 4 })).toThrow(/limits\.memoryMb must be at least 8/)
    expect(() => resolveLimits({ maxToolcalls: 5 } as never)).toThrow(/unknown limit "maxToolcalls"/)
  })

  it('clamps values past what a timer or the sandbox can hold (Infinity included)', () => {
    expect(resolveLimits({ timeoutMs: 2 ** 31 }).timeoutMs).toBe(MAX_TIMEOUT_MS)
    expect(resolveLimits({ timeoutMs: Infinity }).timeoutMs).toBe(MAX_TIMEOUT_MS)
    expect(resolveLimits({ maxParallelToolCalls: 1e6 }).maxParallelToolCalls).toBe(4096)
  })

  it('a run with timeoutMs above 2^31−1 does not time out at once (the timer overflowed before)', async () => {
    const rt = await testRuntime({ limits: { timeoutMs: 2 ** 31 + 5 } })
    const r = await rt.runCode('let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s')
    expect(r.error).toBeNull()
    expect(r.value).toBe(499999500000)
  })

  it('checks a per-run override too', async () => {
    const rt = await testRuntime()
    await expect(rt.runCode('return 1', { limits: { maxToolCalls: -1 } })).rejects.toThrow(/limits\.maxToolCalls must be positive/)
    const r = await rt.runCode('return 1', { limits: { timeoutMs: 2 ** 40 } })
    expect(r.value).toBe(1)
  })

  it('a limit that stops a run says which flag raises it', async () => {
    const rt = await testRuntime({
      tools: [{ name: 'noop', description: 'noop', parameters: { type: 'object' }, execute: () => null }],
      limits: { maxToolCalls: 20, timeoutMs: 2_000 },
    })
    const calls = await rt.runCode('for (;;) await tools.noop({})')
    expect(calls.error?.message).toContain('--max-tool-calls')
    expect(calls.observation).toContain('raise it with --max-tool-calls (limits.maxToolCalls)')
    const slow = await rt.runCode('await new Promise(() => {})')
    expect(slow.error?.kind).toBe('timeout')
    expect(slow.error?.message).toContain('--timeout')
    const big = await rt.runCode('// ' + 'x'.repeat(600 * 1024))
    expect(big.error?.message).toContain('--max-source')
  })

  it('each limit names its own flag, once: timeout, deadline, memory (also past the first await)', async () => {
    const rt = await testRuntime({
      tools: [{ name: 'noop', description: 'noop', parameters: { type: 'object' }, execute: () => null }],
    })
    const flags = (message: string | undefined): string[] => (message ?? '').match(/--[a-z-]+/g) ?? []
    const slow = await rt.runCode('for (;;) {}', { limits: { timeoutMs: 500 } })
    expect(slow.error?.kind).toBe('timeout')
    expect(flags(slow.error?.message)).toEqual(['--timeout'])
    const late = await rt.runCode('await new Promise((r) => setTimeout(r, 20_000))', { limits: { deadlineMs: 500 } })
    expect(late.error?.kind).toBe('timeout')
    // It said "raise deadlineMs (--deadline) (raise it with --timeout (limits.timeoutMs))" before.
    expect(flags(late.error?.message)).toEqual(['--deadline'])
    for (const before of ['', 'await tools.noop({})\n', 'await new Promise((r) => setTimeout(r, 1))\n']) {
      const hog = await rt.runCode(`${before}const h = []; for (;;) h.push(new Array(1e6).fill(h.length))`, {
        limits: { memoryMb: 32, timeoutMs: 20_000 },
      })
      // Past an await it was "runtime: unhandled promise rejection: Error: Promise was abandoned".
      expect(hog.error?.kind, JSON.stringify(before)).toBe('memory')
      expect(flags(hog.error?.message)).toEqual(['--memory'])
    }
  })
})

describe('limit flags', () => {
  it('takes units: 4MiB, 64k, 30s, 5m, 1e5', () => {
    expect(parseQuantity('4MiB', 'bytes')).toBe(4 * 1024 * 1024)
    expect(parseQuantity('64k', 'bytes')).toBe(65536)
    expect(parseQuantity('30s', 'ms')).toBe(30_000)
    expect(parseQuantity('5m', 'ms')).toBe(300_000)
    expect(parseQuantity('1e5', 'count')).toBe(100_000)
    expect(parseQuantity('12 apples', 'count')).toBeNaN()
  })

  it('maps every flag to its limit', () => {
    expect(
      limitsFromFlags({
        timeout: '2m',
        memory: '256',
        'max-tool-calls': '50000',
        'max-parallel': '32',
        'max-output': '4MiB',
        'max-observation': '64KiB',
        'max-source': '1M',
      }),
    ).toEqual({
      timeoutMs: 120_000,
      memoryMb: 256,
      maxToolCalls: 50_000,
      maxParallelToolCalls: 32,
      maxOutputBytes: 4 * 1024 * 1024,
      maxObservationBytes: 64 * 1024,
      maxSourceBytes: 1024 * 1024,
    })
  })

  it('a bad value is a usage error naming the flag (exit 2), for run and mcp alike', () => {
    for (const args of [
      ['--max-tool-calls', 'lots'],
      ['--max-parallel', '0'],
      ['--timeout', '-3'],
      ['--max-output', '1.5.2MiB'],
      ['--memory', '2'],
    ]) {
      const r = codeact(['run', '-', ...args], 'return 1')
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toContain(args[0])
    }
    const m = codeact(['mcp', '--max-tool-calls', 'x'])
    expect(m.status).toBe(2)
    expect(m.stderr).toContain('--max-tool-calls')
  })

  it('a raised limit lets the run through', () => {
    const tools = 'examples/tools.ts'
    const r = codeact(
      ['run', '-', '--tools', tools, '--typecheck=off', '--max-tool-calls', '3', '--json'],
      'for (let i = 0; i < 5; i++) await tools.list_shops({})',
    )
    expect(JSON.parse(r.stdout).error.code).toBe('EDQUOT')
    const ok = codeact(
      ['run', '-', '--tools', tools, '--typecheck=off', '--max-tool-calls', '5', '--json'],
      'for (let i = 0; i < 5; i++) await tools.list_shops({})',
    )
    expect(JSON.parse(ok.stdout).ok).toBe(true)
  })
})

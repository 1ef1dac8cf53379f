/**
 * `--timeout` at or past `--deadline`: the run works, and the earlier of the two stops it. No timer anywhere
 * gets a value outside Node's range (a fraction or past 2^31−1 ms), whatever the limits say.
 */
import { describe, expect, it } from 'vitest'
import { testRuntime } from '../support/runtime.js'
import { codeact } from './helpers.js'

// A synchronous start longer than the child's inline slice: the run starts again on the isolate's thread,
// with what is left of the deadline (a fraction of a ms, which isolated-vm refused as "not a 32-bit number").
const SLOW_START = 'const t = Date.now(); while (Date.now() - t < 150) {}\nconsole.log("started")\nreturn 7'

describe('--timeout at or past --deadline', () => {
  for (const flags of [
    ['--timeout', '10m'],
    ['--timeout', '10m', '--deadline', '10m'],
    ['--timeout', '20m', '--deadline', '90s'],
    ['--timeout', '1000h', '--deadline', '1000h'],
  ]) {
    it(`${flags.join(' ')}: a program with a slow synchronous start runs`, () => {
      const r = codeact(['run', '-', '--typecheck=off', '--json', ...flags], SLOW_START)
      const out = JSON.parse(r.stdout) as { ok: boolean; value: unknown; observation: string }
      expect(out.observation).not.toMatch(/32-bit/)
      expect(out.ok).toBe(true)
      expect(out.value).toBe(7)
    })
  }

  it('the deadline stops a spinning program and names --deadline', () => {
    const r = codeact(
      ['run', '-', '--typecheck=off', '--json', '--timeout', '10m', '--deadline', '1500'],
      SLOW_START.replace('< 150', '< 60_000'),
    )
    const out = JSON.parse(r.stdout) as { ok: boolean; error: { kind: string; message: string } }
    expect(out.ok).toBe(false)
    expect(out.error.kind).toBe('timeout')
    expect(out.error.message).toContain('--deadline')
    expect(out.error.message).toContain('1500 ms')
  })
})

describe('timers a tool definition sets', () => {
  it("a tool's timeoutMs past a timer's range is no limit, not an expiry at once", async () => {
    const rt = await testRuntime({
      tools: [
        {
          name: 'slow',
          description: 'answers after 50 ms',
          parameters: { type: 'object' },
          timeoutMs: 2 ** 32,
          execute: () => new Promise((resolve) => setTimeout(() => resolve('late'), 50)),
        },
      ],
    })
    const r = await rt.runCode('return await tools.slow({})')
    expect(r.observation).not.toContain('ETIMEDOUT')
    expect(r.value).toBe('late')
  })
})

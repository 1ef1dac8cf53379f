/**
 * The child's memory settings (supervisor.ts: a 1 MB young-generation semi-space for the child's own heap,
 * glibc limited to two malloc arenas): the child really starts with them, and with them every memory
 * limit still holds and large messages still cross the process boundary whole.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox, SandboxLimits, SandboxOutcome } from '../../sandbox/types.js'
import { RecordingHost, isolateChildPids, never, request } from './fixtures/isolate-host.js'

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

function run(body: string, limits: Partial<SandboxLimits> = {}, host = new RecordingHost()): Promise<SandboxOutcome> {
  return sandbox.run(request(body, limits), host, never())
}

describe('isolate sandbox: the child is started small', () => {
  it('with a 1 MB semi-space for its own heap and two malloc arenas, beside the lockdown flags', async () => {
    expect(await run('return 1')).toMatchObject({ ok: true, valueJson: '1' })
    const pids = isolateChildPids()
    expect(pids.length).toBeGreaterThan(0)
    for (const pid of pids) {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      expect(args).toEqual(expect.arrayContaining(['--no-node-snapshot', '--max-semi-space-size=1', '--no-expose-wasm']))
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2')
    }
  })
})

describe('isolate sandbox: with those settings, memory limits still hold', () => {
  it.each([
    ['a growing array of objects', 'const a = []; for (;;) a.push({ i: a.length, s: String(a.length) })'],
    ['a growing list of typed arrays', 'const a = []; for (;;) a.push(new Uint8Array(1 << 20).fill(1))'],
    ['many short-lived objects kept by a growing map', 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { s: "x".repeat(64) + i })'],
  ])('%s ends as memory at its limit, and the next run works', async (_, body) => {
    const outcome = await run(body, { memoryMb: 32, timeoutMs: 20_000 })
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'memory' } })
    expect(!outcome.ok && outcome.error.message).toMatch(/exceeded the memory limit of 32 MB/)
    expect(await run('return (await tools.echo({ after: true })).after')).toMatchObject({ ok: true, valueJson: 'true' })
  })

  it('a limit above the default is still a limit (the isolate, not the child flags, sets it)', async () => {
    const outcome = await run('const a = []; for (;;) a.push(new Array(1e5).fill(a.length))', { memoryMb: 256, timeoutMs: 30_000 })
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'memory' } })
    expect(!outcome.ok && outcome.error.message).toMatch(/exceeded the memory limit of 256 MB/)
  })
})

describe('isolate sandbox: large messages cross a child with a small young generation', () => {
  it('an 8 MB tool argument and an 8 MB value arrive whole', async () => {
    const host = new RecordingHost()
    const body =
      "const s = 'ab'.repeat(4 << 20); const back = await tools.echo({ s }); return { n: back.s.length, same: back.s === s, v: s }"
    const outcome = await run(body, { timeoutMs: 20_000 }, host)
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    const value = JSON.parse(outcome.valueJson ?? 'null') as { n: number; same: boolean; v: string }
    expect(value).toMatchObject({ n: 8 << 20, same: true })
    expect(value.v.length).toBe(8 << 20)
  })
})

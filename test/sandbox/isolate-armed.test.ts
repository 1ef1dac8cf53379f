/**
 * Realms armed ahead (sandbox/isolate/realm.ts's armRealm, pool.ts): the child sets up the prelude for the
 * next run with the last run's tool names and output cap before it is asked. A run with another config must
 * still see exactly its own tools and its own cap, and a run with the same config must start from fresh
 * prelude state (its own console budget, no globals of the run before). Real isolates in the real child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox } from '../../sandbox/types.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

const toolsSeen = 'return Object.keys(tools).join(",")'

describe('isolate sandbox: realms armed ahead', () => {
  it('a run with other tool names sees its own, however the runs before it were set up', async () => {
    const sets = [['echo', 'noop'], ['echo', 'noop'], ['alpha'], ['alpha'], ['echo', 'noop'], ['beta', 'gamma'], ['alpha']]
    for (const names of sets) {
      for (let i = 0; i < 3; i++) {
        const outcome = await sandbox.run(request(toolsSeen, {}, names), new RecordingHost(), never())
        expect(outcome).toMatchObject({ ok: true, valueJson: JSON.stringify(names.join(',')) })
      }
    }
  })

  it('a run with another output cap gets its own cap', async () => {
    const print = 'console.log("x".repeat(300)); return 1'
    for (const cap of [1 << 20, 1 << 20, 100, 100, 1 << 20, 100]) {
      const outcome = await sandbox.run(request(print, { maxOutputBytes: cap }), new RecordingHost(), never())
      expect(outcome.ok).toBe(true)
      expect(outcome.droppedOutputBytes > 0).toBe(cap === 100)
    }
  })

  it('each run with the same config starts from fresh prelude state: its own console budget, no earlier globals', async () => {
    for (let i = 0; i < 6; i++) {
      const host = new RecordingHost()
      const body = `const seen = typeof globalThis.leftover; globalThis.leftover = 1; console.log("y".repeat(600)); return seen`
      const outcome = await sandbox.run(request(body, { maxOutputBytes: 1000 }), host, never())
      expect(outcome).toMatchObject({ ok: true, valueJson: '"undefined"', droppedOutputBytes: 0 })
      expect(host.logs.map((l) => l.text.length)).toEqual([600])
    }
  })

  it('a call made by a run reaches the host of that run only', async () => {
    const first = new RecordingHost()
    const second = new RecordingHost()
    await sandbox.run(request('return await tools.echo({ n: 1 })'), first, never())
    const outcome = await sandbox.run(request('return await tools.echo({ n: 2 })'), second, never())
    expect(outcome).toMatchObject({ ok: true, valueJson: '{"n":2}' })
    expect(first.calls).toEqual([{ name: 'echo', args: { n: 1 } }])
    expect(second.calls).toEqual([{ name: 'echo', args: { n: 2 } }])
  })
})

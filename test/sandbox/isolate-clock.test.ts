/**
 * The program's own clock (sandbox/program-clock.ts) across tool calls, in the real child: its timer is
 * armed once and not re-armed per call, so one that fires while a call is pending must arm itself again
 * when the program resumes, and program time on both sides of a call adds up.
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

const wait = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}))`

describe('isolate sandbox: program time across tool calls', () => {
  it('own waits on both sides of a long call add up past the budget: a program timeout, not the deadline', async () => {
    // Each wait after the call is shorter than the time left (a timer past it is never scheduled), together longer.
    const body = `${wait(250)}; await tools.slow({ ms: 600 }); for (let i = 0; i < 4; i++) ${wait(60)}; return 'finished'`
    const outcome = await sandbox.run(request(body, { timeoutMs: 400, deadlineMs: 20_000 }), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout', budget: 'program' } })
  })

  it('a call longer than the whole budget, between short own waits, is not program time', async () => {
    const body = `${wait(100)}; await tools.slow({ ms: 600 }); ${wait(100)}; await tools.slow({ ms: 600 }); return 'finished'`
    const outcome = await sandbox.run(request(body, { timeoutMs: 400, deadlineMs: 20_000 }), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true, valueJson: '"finished"' })
  })

  it('a program that never awaits anything of the host still ends at its budget', async () => {
    const outcome = await sandbox.run(request(`${wait(100_000)}`, { timeoutMs: 300, deadlineMs: 20_000 }), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout', budget: 'program' } })
  })
})

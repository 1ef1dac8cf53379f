/**
 * An abort that reaches the child before its run has begun (while the child is still taking an isolate for
 * it): the type check's blocking verdict aborts a run right after it starts, so this is every type error
 * with the check on. The run answers `aborted` and the child lives on; before, the run read the disposed
 * isolate's cpuTime, threw out of execute(), and the child died (exit code 1) with every run in it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { never, RecordingHost, request } from './fixtures/isolate-host.js'

let sandbox: IsolateSandbox | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

/** Abort after `wait` turns: 0 right after run() is called, then a microtask, an immediate, a timer. */
const later = [
  (f: () => void) => f(),
  (f: () => void) => queueMicrotask(f),
  (f: () => void) => setImmediate(f),
  (f: () => void) => setImmediate(() => setImmediate(f)),
  (f: () => void) => setTimeout(f, 0),
  (f: () => void) => setTimeout(f, 1),
]

describe('isolate sandbox: an abort at the very start of a run', () => {
  it('answers aborted, keeps the child, and the next run is served by it', async () => {
    sandbox = createIsolateSandbox()
    const first = await sandbox.run(request('return 1'), new RecordingHost(), never())
    expect(first).toMatchObject({ ok: true })
    const pid = sandbox.pidOf()
    for (let round = 0; round < 4; round++) {
      for (const when of later) {
        const controller = new AbortController()
        const run = sandbox.run(request('await tools.noop({}); return 2'), new RecordingHost(), controller.signal)
        when(() => controller.abort())
        const outcome = await run
        expect(outcome.ok ? 'ok' : outcome.error.kind).toMatch(/^(ok|aborted)$/)
        // Whatever the timing, the child is the same one and serves the next run.
        expect(await sandbox.run(request('return 3'), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: '3' })
        expect(sandbox.pidOf()).toBe(pid)
      }
    }
  })
})

/**
 * A run alone in its child starts its program on the child's own thread, for at most a short slice
 * (sandbox/isolate/glue.ts: startInline, INLINE_START_MS); a start that runs longer is cut off there and the run
 * is started again on the isolate's thread, in another isolate. From the caller's side nothing of that
 * shows: the program's calls, console lines and timers happen once, in order, and the child's thread is
 * never held for a long start — another run, an abort, a time limit are served as before.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { never, RecordingHost, request } from './fixtures/isolate-host.js'

let sandbox: IsolateSandbox | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

async function started(): Promise<IsolateSandbox> {
  sandbox = createIsolateSandbox()
  // A first run warms the child: the runs below are each alone in a warm child.
  expect(await sandbox.run(request('return 0'), new RecordingHost(), never())).toMatchObject({ ok: true })
  return sandbox
}

/** A start that keeps the thread busy for `ms` before the program's first await. */
const busy = (ms: number) => `{ const t = Date.now(); while (Date.now() - t < ${ms}) {} }`

describe('isolate sandbox: a program whose synchronous start is long', () => {
  it('makes its calls, console lines and timers once, in order, and returns its value', async () => {
    const sb = await started()
    for (const ms of [1, 60, 300]) {
      const host = new RecordingHost()
      const outcome = await sb.run(
        request(`console.log('before')
          setTimeout(() => console.log('timer'), 0)
          const answer = tools.echo({ n: ${ms} })
          ${busy(ms)}
          console.log('after')
          const { n } = await answer
          return n`),
        host,
        never(),
      )
      expect(outcome).toMatchObject({ ok: true, valueJson: String(ms) })
      expect(host.calls).toEqual([{ name: 'echo', args: { n: ms } }])
      expect(host.logs.map((l) => l.text)).toEqual(['before', 'after', 'timer'])
    }
  })

  it('does not hold up a run that arrives while it is still starting', async () => {
    const sb = await started()
    const looping = sb.run(request('for (;;) {}', { timeoutMs: 3000 }), new RecordingHost(), never())
    await new Promise((r) => setTimeout(r, 50))
    const t0 = performance.now()
    const quick = await sb.run(request('return 2'), new RecordingHost(), never())
    const quickMs = performance.now() - t0
    expect(quick).toMatchObject({ ok: true, valueJson: '2' })
    // Far below the looping run's 3 s: the child's thread was free for it.
    expect(quickMs).toBeLessThan(1500)
    expect(await looping).toMatchObject({ ok: false, error: { kind: 'timeout' } })
  })

  it('is aborted at once, and the same child serves the next run', async () => {
    const sb = await started()
    const pid = sb.pidOf()
    const controller = new AbortController()
    const run = sb.run(request('for (;;) {}', { timeoutMs: 10_000 }), new RecordingHost(), controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect(await run).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    // The child confirmed the abort itself: it was not killed past the grace period for being stuck.
    expect(await sb.run(request('return 3'), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: '3' })
    expect(sb.pidOf()).toBe(pid)
  })

  it('ends as a timeout naming the limit when the start itself outlasts the time limit', async () => {
    const sb = await started()
    for (const timeoutMs of [5, 30, 200]) {
      const outcome = await sb.run(request(busy(10_000), { timeoutMs }), new RecordingHost(), never())
      expect(outcome).toMatchObject({
        ok: false,
        error: { kind: 'timeout', message: `the program exceeded the time limit of ${timeoutMs} ms` },
      })
    }
  })

  it('a return value whose getter loops past the slice is a timeout, and the child lives on', async () => {
    const sb = await started()
    const pid = sb.pidOf()
    const outcome = await sb.run(request('return { get x() { for (;;) {} } }', { timeoutMs: 300 }), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout' } })
    expect(await sb.run(request('return 4'), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: '4' })
    expect(sb.pidOf()).toBe(pid)
  })
})

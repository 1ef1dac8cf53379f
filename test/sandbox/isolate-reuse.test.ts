/**
 * Isolates reused across runs (sandbox/isolate/pool.ts): after a run the pool makes the next run's context
 * first (its answer is the proof that the isolate is idle) and sets it up while the isolate waits; after runs
 * overlapped it keeps an isolate for each of them for a while instead of disposing them. Whichever isolate a
 * run lands in, it starts in a context no run has touched: nothing an earlier run left — globals, patched
 * prototypes, an interval still armed, a promise it resolved, a call it never awaited — reaches a later run,
 * sequential or overlapping, and a memory kill in a kept isolate ends only that run. Real isolates, real child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

let sandbox: IsolateSandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

/** Leaves everything it can behind in its context, then ends cleanly. */
const LEAVE = `
  globalThis.leftGlobal = 1
  Object.prototype.leftProto = 1
  Array.prototype.leftArray = 1
  JSON.leftJson = 1
  globalThis.leftPromise = Promise.resolve('old')
  setInterval(() => { globalThis.leftTick = 1 }, 1)
  void tools.slow({ ms: 30, value: 'late' }).then((v) => { globalThis.leftCall = v })
  await new Promise((r) => setTimeout(r, 5))
  return 'left'
`
/** What a later run sees of it (after a pause in which a leftover interval would have fired). */
const LOOK = `
  await new Promise((r) => setTimeout(r, 20))
  return [globalThis.leftGlobal, ({}).leftProto, [].leftArray, JSON.leftJson, globalThis.leftPromise, globalThis.leftTick, globalThis.leftCall]
    .map((v) => typeof v).join(',')
`
const NOTHING = JSON.stringify(Array(7).fill('undefined').join(','))

const run = (body: string, memoryMb?: number) =>
  sandbox.run(request(body, memoryMb ? { memoryMb, timeoutMs: 20_000 } : {}), new RecordingHost(), never())

describe('isolate sandbox: a reused isolate starts each run in an untouched context', () => {
  it('sequential runs: nothing the run before left is visible', async () => {
    for (let i = 0; i < 6; i++) {
      expect(await run(LEAVE)).toMatchObject({ ok: true, valueJson: '"left"' })
      expect(await run(LOOK)).toMatchObject({ ok: true, valueJson: NOTHING })
    }
  })

  it('overlapping runs of one caller, in isolates kept from the runs before: nothing crosses', async () => {
    const pid = sandbox.pidOf()
    for (let wave = 0; wave < 4; wave++) {
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => run(wave % 2 === 0 && i % 2 === 0 ? LEAVE : LOOK)))
      for (const [i, outcome] of outcomes.entries())
        expect(outcome).toMatchObject({ ok: true, valueJson: wave % 2 === 0 && i % 2 === 0 ? '"left"' : NOTHING })
    }
    expect(sandbox.pidOf()).toBe(pid)
  })

  it('a memory kill in an isolate kept for a burst ends that run only; the runs beside it and after it are clean', async () => {
    await Promise.all(Array.from({ length: 8 }, () => run(LEAVE)))
    const hog = 'const a = []; for (;;) a.push(new Array(1e6).fill(1))'
    const outcomes = await Promise.all([run(hog, 64), ...Array.from({ length: 5 }, () => run(LOOK))])
    expect(outcomes[0]).toMatchObject({ ok: false, error: { kind: 'memory' } })
    // V8 may abort the whole child at the limit (measured): runs beside it in that process then end with it.
    for (const outcome of outcomes.slice(1)) {
      if (outcome.ok) expect(outcome.valueJson).toBe(NOTHING)
      else expect(outcome.error.kind).toBe('memory')
    }
    // Past the time a burst's isolates are kept, and again at once: the pool serves clean runs either way.
    await new Promise((r) => setTimeout(r, 1200))
    for (const outcome of await Promise.all(Array.from({ length: 8 }, () => run(LOOK))))
      expect(outcome).toMatchObject({ ok: true, valueJson: NOTHING })
    expect(await run(LOOK)).toMatchObject({ ok: true, valueJson: NOTHING })
  }, 30_000)
})

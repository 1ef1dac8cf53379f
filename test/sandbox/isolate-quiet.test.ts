/**
 * The child's quiet trim (sandbox/isolate/quiet.ts, pool.ts trimQuiet, pooled-isolate.ts compactIdle): after
 * `quietMs` without a run the pool keeps its warm count of isolates, compacted, with their realms ready, and
 * lets the rest go. From the user's side nothing may change but the footprint: a run arriving at any moment
 * around a trim gets its answer, a session's realm outlives any number of trims, the next run finds a warm
 * isolate, and closing leaves no process. Real isolates; the sandbox tests a real child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { IsolatePool } from '../../sandbox/isolate/pool.js'
import { takeRealm } from '../../sandbox/isolate/pooled-isolate.js'
import { DEFAULT_CHILD_CONFIG } from '../../sandbox/isolate/protocol.js'
import { releaseRealm } from '../../sandbox/isolate/realm.js'
import { isAlive as alive, never, RecordingHost, request } from './fixtures/isolate-host.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const MB = 64
/** A run's config as the prelude takes it (isolate-run.ts runConfig). */
const CONFIG = JSON.stringify({ toolNames: [], maxOutputBytes: 1024 })

/** The trim, once the pool lets it happen (a fill or a return may be under way for a moment). */
async function trimmed(pool: IsolatePool): Promise<Promise<void>[]> {
  for (let i = 0; i < 200; i++) {
    const kept = pool.trimQuiet()
    if (kept !== false) return kept
    await sleep(5)
  }
  throw new Error('the pool never let the trim happen')
}

describe('isolate pool: the quiet trim', () => {
  /** A pool that has just seen 6 runs overlap (it keeps an isolate for each of them for a while). */
  async function afterBurst(): Promise<IsolatePool> {
    const pool = new IsolatePool(DEFAULT_CHILD_CONFIG)
    const entries = await Promise.all(Array.from({ length: 6 }, () => pool.acquire(MB)))
    await Promise.all(entries.map((entry) => pool.release(entry, true)))
    return pool
  }

  it('keeps the warm count, each with its prepared realm, used before; the next run takes one of them', async () => {
    const pool = await afterBurst()
    try {
      const kept = await trimmed(pool)
      expect(kept.length).toBe(DEFAULT_CHILD_CONFIG.warmIsolates)
      await Promise.all(kept)
      const entry = await pool.acquire(MB)
      expect(entry.isolate.isDisposed).toBe(false)
      expect(entry.runs).toBeGreaterThan(0)
      expect(entry.ready).toBeDefined()
      const realm = takeRealm(entry, CONFIG, 1000)
      expect(await realm.context.eval('6 * 7', { timeout: 1000 })).toBe(42)
      releaseRealm(realm, entry.isolate)
      await pool.release(entry, true)
    } finally {
      await pool.close()
    }
  })

  it('the run that takes the kept isolate has no isolate made beside it while it runs', async () => {
    const pool = await afterBurst()
    try {
      await Promise.all(await trimmed(pool))
      const first = await pool.acquire(MB)
      // Time enough for a fill to have made one (a few ms): none was, so the next run out makes its own.
      await sleep(150)
      const second = await pool.acquire(MB)
      if (second.preparing) await second.preparing
      expect(first.runs).toBeGreaterThan(0)
      expect(second.runs).toBe(0)
      expect(second.ready).toBeUndefined()
      await pool.release(second, true)
      await pool.release(first, true)
    } finally {
      await pool.close()
    }
  })

  it('declines while a run is out or its isolate is on its way back', async () => {
    const pool = await afterBurst()
    try {
      const entry = await pool.acquire(MB)
      // Past the fill the acquire started (making an isolate declines too): only the run out is left.
      await sleep(100)
      expect(pool.trimQuiet()).toBe(false)
      const back = pool.release(entry, true)
      expect(pool.trimQuiet()).toBe(false)
      await back
      expect((await trimmed(pool)).length).toBe(DEFAULT_CHILD_CONFIG.warmIsolates)
    } finally {
      await pool.close()
    }
  })

  it('a run that takes the isolate while its collection runs (many timings) waits for it and runs in its realm', async () => {
    const pool = await afterBurst()
    try {
      for (let i = 0; i < 24; i++) {
        const kept = await trimmed(pool)
        // From at once to a few milliseconds in: before, during and after the collection on the isolate's thread.
        if (i % 3 === 1) await new Promise((resolve) => setImmediate(resolve))
        if (i % 3 === 2) await sleep(i / 4)
        const entry = await pool.acquire(MB)
        expect(entry.isolate.isDisposed).toBe(false)
        expect(entry.preparing).toBeUndefined()
        const realm = takeRealm(entry, CONFIG, 1000)
        expect(await realm.context.eval(`${i} + 1`, { timeout: 1000 })).toBe(i + 1)
        releaseRealm(realm, entry.isolate)
        await Promise.all(kept)
        await pool.release(entry, true)
      }
    } finally {
      await pool.close()
    }
  })
})

describe('isolate sandbox: runs around the quiet trim (real child, quietMs 20)', () => {
  let sandbox: IsolateSandbox
  beforeAll(async () => {
    sandbox = createIsolateSandbox({ quietMs: 20 })
    await sandbox.start()
  })
  afterAll(() => sandbox.close())

  const run = (body: string) => sandbox.run(request(body), new RecordingHost(), never())

  it('runs at every moment around a trim give the same answers, calls included, in the same child', async () => {
    expect(await run('return 1')).toMatchObject({ ok: true })
    const pid = sandbox.pidOf()
    for (let gap = 0; gap <= 60; gap += 3) {
      await sleep(gap)
      const [one, two] = await Promise.all([
        run(`const r = await tools.echo({ n: ${gap} }); return r.n * 2`),
        gap % 2 === 0 ? run(`return ${gap} + 1`) : Promise.resolve({ ok: true, valueJson: String(gap + 1) }),
      ])
      expect(one).toMatchObject({ ok: true, valueJson: String(gap * 2) })
      expect(two).toMatchObject({ ok: true, valueJson: String(gap + 1) })
    }
    expect(sandbox.pidOf()).toBe(pid)
  })

  it("a session's realm outlives the trims: its globals are there after quiet periods, run after run", async () => {
    const id = 'quiet-session'
    const session = (realm: 'new' | 'existing', body: string) =>
      sandbox.run({ ...request(body), session: { id, realm } }, new RecordingHost(), never())
    expect(await session('new', 'globalThis.count = 1; return count')).toMatchObject({ ok: true, valueJson: '1' })
    for (let i = 2; i <= 6; i++) {
      // Pool runs in between keep the pool busy and then quiet again; the trims come after each.
      expect(await run('return 0')).toMatchObject({ ok: true })
      await sleep(60 + i * 10)
      expect(await session('existing', 'globalThis.count += 1; return count')).toMatchObject({ ok: true, valueJson: String(i) })
    }
    await sandbox.endSession?.(id)
  })
})

describe('isolate sandbox: closing after a trim', () => {
  it('leaves no process behind, whether the trim is done or under way', async () => {
    for (const wait of [0, 25, 150]) {
      const sandbox = createIsolateSandbox({ quietMs: 20 })
      await sandbox.start()
      expect(await sandbox.run(request('return 1'), new RecordingHost(), never())).toMatchObject({ ok: true })
      const pid = sandbox.pidOf() as number
      expect(pid).toBeGreaterThan(0)
      await sleep(wait)
      await sandbox.close()
      for (let i = 0; i < 100 && alive(pid); i++) await sleep(20)
      expect(alive(pid)).toBe(false)
    }
  })
})

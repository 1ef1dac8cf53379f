/**
 * The warm-pool lifecycle every pool of codeact uses (vocabulary/warm-pool.ts), over a backend whose
 * resources are plain objects: each made one is counted, so a test can show none was left alive.
 */
import { describe, expect, it } from 'vitest'
import { type Created, WarmPool, type WarmPoolOptions } from '../../vocabulary/warm-pool.js'

interface Thing {
  id: number
  alive: boolean
  broken: boolean
}

/** A backend that records every resource it made and ended; `hang` makes the next create or destroy never settle. */
function backend(how: { failCreate?: string; hangCreate?: boolean; hangDestroy?: boolean } = {}) {
  const made: Thing[] = []
  let next = 0
  const asked = { creates: 0 }
  return {
    made,
    how,
    asked,
    alive: () => made.filter((t) => t.alive).length,
    create(): Promise<Created<Thing>> {
      asked.creates++
      if (how.hangCreate) return new Promise(() => {})
      if (how.failCreate) return Promise.resolve({ ok: false, message: how.failCreate })
      const thing = { id: ++next, alive: true, broken: false }
      made.push(thing)
      return new Promise((resolve) => setImmediate(() => resolve({ ok: true, resource: thing })))
    },
    destroy(thing: Thing): Promise<void> | undefined {
      if (how.hangDestroy) return new Promise(() => {})
      thing.alive = false
      return undefined
    },
    healthy: (thing: Thing) => thing.alive && !thing.broken,
  }
}

const options = (over: Partial<WarmPoolOptions> = {}): WarmPoolOptions => ({
  name: 'the test pool',
  warm: 2,
  max: 4,
  idleMs: 60_000,
  startTimeoutMs: 5_000,
  stopTimeoutMs: 5_000,
  ...over,
})

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5))
}

describe('a warm pool', () => {
  it('waiting for it to be ready ends as soon as its starts fail, and a failed start is not retried', async () => {
    const b = backend({ failCreate: 'the engine has no such image' })
    const pool = new WarmPool(b, options({ startTimeoutMs: 60_000 }))
    expect(await pool.ready(2, 60_000)).toBe(false)
    expect(b.asked.creates).toBe(2)
    const taken = await pool.take()
    expect(taken).toMatchObject({ ok: false, code: 'start_failed', message: 'the engine has no such image' })
    await pool.close()
  })

  it('fills to its warm count and serves a take from it without starting anything', async () => {
    const b = backend()
    const pool = new WarmPool(b, options())
    expect(await pool.ready(2, 5_000)).toBe(true)
    expect(pool.counts()).toMatchObject({ idle: 2, starting: 0, created: 2 })
    const taken = await pool.take()
    expect(taken.ok && taken.resource.alive).toBe(true)
    expect(pool.counts()).toMatchObject({ busy: 1 })
    await pool.close()
  })

  it('refills after a take, and a resource given back is the next one taken', async () => {
    const b = backend()
    const pool = new WarmPool(b, options())
    await pool.ready(2, 5_000)
    const first = await pool.take()
    if (!first.ok) throw new Error(first.message)
    await until(() => pool.counts().idle === 2)
    pool.give(first.resource)
    expect(pool.counts()).toMatchObject({ idle: 3, busy: 0 })
    const again = await pool.take()
    expect(again.ok && again.resource).toBe(first.resource)
    expect(pool.uses(first.resource)).toBe(1)
    await pool.close()
  })

  it('retires a resource the health rule refuses, at take and at give back, and after maxUses', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1, maxUses: 2 }))
    await pool.ready(1, 5_000)
    const a = await pool.take()
    if (!a.ok) throw new Error(a.message)
    a.resource.broken = true
    pool.give(a.resource)
    expect(a.resource.alive).toBe(false)
    await until(() => pool.counts().idle === 1)
    const [idle] = b.made.filter((t) => t.alive)
    if (idle === undefined) throw new Error('no idle resource')
    idle.broken = true
    const c = await pool.take()
    expect(c.ok && c.resource !== idle).toBe(true)
    expect(idle.alive).toBe(false)
    if (!c.ok) throw new Error(c.message)
    pool.give(c.resource)
    const d = await pool.take()
    expect(d.ok && d.resource).toBe(c.resource)
    if (!d.ok) throw new Error(d.message)
    pool.give(d.resource)
    expect(c.resource.alive).toBe(false) // its second use was its last
    await pool.close()
  })

  it('a resource given back as not reusable is destroyed, and the warm count is made again', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1 }))
    const a = await pool.take()
    if (!a.ok) throw new Error(a.message)
    pool.give(a.resource, false)
    expect(a.resource.alive).toBe(false)
    await until(() => pool.counts().idle === 1)
    await pool.close()
  })

  it('trims idle resources past idleMs down to keep(), the most recently given back kept', async () => {
    const b = backend()
    let keep = 1
    const pool = new WarmPool(b, options({ warm: 0, idleMs: 30, keep: () => keep }))
    const taken = await Promise.all([pool.take(), pool.take(), pool.take()])
    const things = taken.map((t) => {
      if (!t.ok) throw new Error(t.message)
      return t.resource
    })
    for (const thing of things) pool.give(thing)
    await until(() => pool.counts().idle === 1)
    expect(things.map((t) => t.alive)).toEqual([false, false, true])
    keep = 0
    await until(() => pool.counts().idle === 0)
    expect(b.alive()).toBe(0)
    await pool.close()
  })

  it('refills after a resource dies from outside, and a take after it is still served', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1 }))
    await pool.ready(1, 5_000)
    const [idle] = b.made
    if (idle === undefined) throw new Error('no idle resource')
    idle.alive = false // killed from outside
    pool.retire(idle)
    await until(() => pool.counts().idle === 1)
    const taken = await pool.take()
    expect(taken.ok && taken.resource.alive).toBe(true)
    // Killed while busy: retired by its holder, the next take is served by a new one.
    if (!taken.ok) throw new Error(taken.message)
    taken.resource.alive = false
    pool.retire(taken.resource)
    const next = await pool.take()
    expect(next.ok && next.resource.alive).toBe(true)
    await pool.close()
  })

  it('a create that hangs past its start timeout answers the take start_timeout, and frees its slot', async () => {
    const b = backend({ hangCreate: true })
    const pool = new WarmPool(b, options({ warm: 0, max: 1, startTimeoutMs: 50 }))
    const taken = await pool.take()
    expect(taken).toMatchObject({ ok: false, code: 'start_timeout' })
    expect(!taken.ok && taken.message).toContain('did not start within 50 ms')
    b.how.hangCreate = false
    const next = await pool.take()
    expect(next.ok).toBe(true)
    await pool.close()
  })

  it('a create that fails answers one take with why, and is not retried on its own', async () => {
    const b = backend({ failCreate: 'engine gone' })
    const pool = new WarmPool(b, options({ warm: 2 }))
    const taken = await pool.take()
    expect(taken).toMatchObject({ ok: false, code: 'start_failed' })
    expect(!taken.ok && taken.message).toContain('engine gone')
    await until(() => pool.counts().starting === 0)
    await new Promise((r) => setTimeout(r, 50))
    expect(pool.counts().starting).toBe(0)
    await pool.close()
  })

  it('a destroy that hangs past its stop timeout does not hold close, and is counted stuck', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1, stopTimeoutMs: 50 }))
    await pool.ready(1, 5_000)
    b.how.hangDestroy = true
    const counts = await pool.close()
    expect(counts).toMatchObject({ stuck: 1, destroyed: 0, idle: 0, stopping: 0 })
  })

  it('close answers takes waiting for room `closed`, and a take after close too', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 0, max: 1 }))
    const first = await pool.take()
    expect(first.ok).toBe(true)
    const waiting = [pool.take(), pool.take()]
    await until(() => pool.counts().waiting === 2)
    await pool.close()
    for (const w of await Promise.all(waiting)) expect(w).toMatchObject({ ok: false, code: 'closed' })
    expect(await pool.take()).toMatchObject({ ok: false, code: 'closed' })
  })

  it('a take waiting for room gets the resource given back, and an aborted take leaves the queue', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 0, max: 1 }))
    const first = await pool.take()
    if (!first.ok) throw new Error(first.message)
    const stop = new AbortController()
    const aborted = pool.take(stop.signal)
    const waiting = pool.take()
    stop.abort()
    expect(await aborted).toMatchObject({ ok: false, code: 'aborted' })
    pool.give(first.resource)
    const second = await waiting
    expect(second.ok && second.resource).toBe(first.resource)
    await pool.close()
  })

  it('never holds more than max alive, and leaves nothing alive after close: busy, idle and still starting', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 3, max: 4 }))
    const takes = Array.from({ length: 6 }, () => pool.take())
    await until(() => pool.counts().busy === 4)
    expect(b.made.length).toBe(4)
    pool.fill() // starting ones in flight as close begins
    const counts = await pool.close()
    await Promise.all(takes)
    expect(b.alive()).toBe(0)
    expect(counts.created).toBe(counts.destroyed)
    expect(counts).toMatchObject({ starting: 0, idle: 0, busy: 0, stopping: 0, stuck: 0 })
  })

  it('a detached resource is the holder’s: close does not end it, and its place is refilled', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1 }))
    const taken = await pool.take()
    if (!taken.ok) throw new Error(taken.message)
    pool.detach(taken.resource)
    await until(() => pool.counts().idle === 1)
    await pool.close()
    expect(taken.resource.alive).toBe(true)
    expect(b.alive()).toBe(1)
  })
})

describe('a warm pool: rules for resources that prepare themselves (the isolate pool)', () => {
  /** `n` resources taken at once and given back in order: idle in the order given back. */
  async function givenBack(pool: WarmPool<Thing>, n: number): Promise<Thing[]> {
    const taken = await Promise.all(Array.from({ length: n }, () => pool.take()))
    const things = taken.map((t) => {
      if (!t.ok) throw new Error(t.message)
      return t.resource
    })
    for (const thing of things) expect(pool.give(thing)).toBe(true)
    await until(() => pool.counts().starting === 0)
    return things
  }

  it('takeOldest: the one given back longest ago is taken first (the default takes the most recent)', async () => {
    const oldest = new WarmPool(backend(), options({ warm: 0, takeOldest: true }))
    const [a, , c] = await givenBack(oldest, 3)
    expect(oldest.takeIdle()).toBe(a)
    const recent = new WarmPool(backend(), options({ warm: 0 }))
    const [, , z] = await givenBack(recent, 3)
    expect(recent.takeIdle()).toBe(z)
    expect(oldest.idleResources()).not.toContain(a)
    expect(oldest.idleResources().at(-1)).toBe(c)
    await Promise.all([oldest.close(), recent.close()])
  })

  it('a take with none idle waits returnWaitMs for a returning one and gets it, nothing started for it', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1, returnWaitMs: 60_000 }))
    const first = await pool.take()
    if (!first.ok) throw new Error(first.message)
    await until(() => pool.counts().idle === 1)
    pool.returning(first.resource)
    const creates = b.asked.creates
    // The last idle one taken: the returning one stands for the warm count, so nothing is started.
    const second = await pool.take()
    const third = pool.take()
    await new Promise((r) => setTimeout(r, 30))
    expect(b.asked.creates).toBe(creates)
    expect(pool.counts()).toMatchObject({ waiting: 1, returning: 1, starting: 0, busy: 2 })
    pool.give(first.resource)
    const got = await third
    expect(got.ok && got.resource).toBe(first.resource)
    expect(second.ok && second.resource !== first.resource).toBe(true)
    await pool.close()
  })

  it('past returnWaitMs the waiting take has a create of its own; a returning one lost is replaced at once', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 0, returnWaitMs: 20 }))
    const first = await pool.take()
    if (!first.ok) throw new Error(first.message)
    pool.returning(first.resource)
    const second = await pool.take()
    expect(second.ok && second.resource !== first.resource).toBe(true)
    const third = pool.take()
    pool.retire(first.resource)
    const got = await third
    expect(got.ok && got.resource.alive).toBe(true)
    await pool.close()
  })

  it('standby sees a new resource that goes idle, never one made for a take that waited', async () => {
    const b = backend()
    const standby: Thing[] = []
    const pool = new WarmPool({ ...b, standby: (t: Thing) => standby.push(t) }, options({ warm: 1 }))
    const taken = await pool.take()
    if (!taken.ok) throw new Error(taken.message)
    await until(() => pool.counts().idle === 1)
    expect(standby).toEqual(pool.idleResources())
    expect(standby).not.toContain(taken.resource)
    pool.give(taken.resource)
    expect(standby).not.toContain(taken.resource)
    await pool.close()
  })

  it('after trim(keep, true) the take of the last idle one refills at its give, not before', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1 }))
    await givenBack(pool, 3)
    pool.trim(1, true)
    expect(pool.counts()).toMatchObject({ idle: 1, starting: 0 })
    const creates = b.asked.creates
    const taken = await pool.take()
    if (!taken.ok) throw new Error(taken.message)
    await new Promise((r) => setTimeout(r, 30))
    expect(b.asked.creates).toBe(creates)
    pool.give(taken.resource)
    // The give restores the warm count by itself: nothing to start. The next take of the last one refills.
    expect(pool.counts()).toMatchObject({ idle: 1, starting: 0 })
    const next = await pool.take()
    expect(next.ok).toBe(true)
    expect(b.asked.creates).toBe(creates + 1)
    await pool.close()
  })
})

describe('a warm pool: detached takes (single-use resources)', () => {
  it('the place of a detached one is refilled after refillDelayMs, as after any take, not at once', async () => {
    const b = backend()
    const pool = new WarmPool(b, options({ warm: 1, refillDelayMs: 60_000 }))
    await pool.ready(1, 5_000)
    const taken = pool.takeIdle()
    if (taken === undefined) throw new Error('none idle')
    pool.detach(taken)
    await new Promise((r) => setTimeout(r, 30))
    expect(pool.counts()).toMatchObject({ idle: 0, starting: 0 })
    expect(b.asked.creates).toBe(1)
    // A take that finds none idle does not wait for the delay: it starts one for itself and the warm count.
    const next = await pool.take()
    expect(next.ok).toBe(true)
    await pool.close()
  })
})

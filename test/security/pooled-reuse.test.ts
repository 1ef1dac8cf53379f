/**
 * A pooled isolate serves run after run of one caller (sandbox/isolate/pool.ts), each in a fresh context whose
 * per-run setup may be done ahead, for the config the last runs had (realm.ts armRealm, glue.ts). From the side
 * of a program that wants to reach the next run: what it leaves behind as it returns — a timer, a pending
 * promise, a call still in flight, a polluted intrinsic keyed by a registered symbol, a stack hook — must not
 * act in, or be seen by, the run after it; and a realm armed ahead for one tool list must never serve a run
 * with another. (Plain globals and prototypes are in test/sandbox/isolate-isolation.test.ts.)
 *
 * What breaks them: a host timer table or call table shared between runs, a realm reused across runs, an
 * armed realm taken without comparing its config (pool.ts / isolate-run.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from '../sandbox/fixtures/isolate-host.js'

let sandbox: IsolateSandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

async function value(body: string, host = new RecordingHost(), toolNames?: string[]): Promise<unknown> {
  const outcome = await sandbox.run(request(body, {}, toolNames), host, never())
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error))
  return outcome.valueJson === undefined ? undefined : JSON.parse(outcome.valueJson)
}

describe('a reused isolate: nothing one run leaves behind acts in the next', () => {
  it("a timer armed as the program returns never fires, in its run or the next; the next run's own timers keep their delays", async () => {
    const first = new RecordingHost()
    // Timers of every kind the prelude has: zero-delay (fired at the glue's tick), short, and an interval.
    await value(
      `setTimeout(() => void tools.echo({ leak: 'zero' }), 0)
       setTimeout(() => void tools.echo({ leak: 'short' }), 60)
       setInterval(() => void tools.echo({ leak: 'interval' }), 30)
       return 1`,
      first,
    )
    // The run waited for its timeouts (the prelude ends a run when nothing it started is pending) and stopped
    // its interval: what its host saw by its end is all it ever sees.
    const atEnd = [...first.calls]
    expect(atEnd.map((c) => (c.args as { leak: string }).leak).sort()).toEqual(['short', 'zero'])
    const second = new RecordingHost()
    // Run 2's timers reuse the same ids as run 1's: a stale one of run 1 must not fire one of these early.
    const timed = (await value(
      `const t0 = Date.now()
       const order = []
       await Promise.all([
         new Promise((r) => setTimeout(() => { order.push('a'); r() }, 250)),
         new Promise((r) => setTimeout(() => { order.push('b'); r() }, 150)),
       ])
       return { order, ms: Date.now() - t0, keys: Object.keys(globalThis) }`,
      second,
    )) as { order: string[]; ms: number; keys: string[] }
    expect(timed.order).toEqual(['b', 'a'])
    expect(timed.ms).toBeGreaterThanOrEqual(240)
    expect(timed.keys).toEqual([])
    expect(second.calls).toEqual([])
    // Well after every timer of run 1 would have come due: still nothing more at either host.
    await new Promise((r) => setTimeout(r, 150))
    expect(first.calls).toEqual(atEnd)
    expect(second.calls).toEqual([])
  }, 30_000)

  it("a run that threw with a call in flight: the call's answer, during the next run, reaches neither that run's host nor its globals", async () => {
    const first = new RecordingHost()
    // A throw ends the run at once, its call still out (unlike a return, which waits for it).
    const thrown = await sandbox.run(
      request(`tools.slow({ ms: 80, value: 'late' }).then(async (v) => { globalThis.stash = v; await tools.echo({ leak: v }) })
       new Promise((r) => { globalThis.resolveLater = r }).then(() => tools.echo({ leak: 'resolved' }))
       throw new Error('ended with a call out')`),
      first,
      never(),
    )
    expect(thrown.ok).toBe(false)
    const second = new RecordingHost()
    const seen = await value(
      `await tools.slow({ ms: 200, value: 'own' })
       return [typeof globalThis.stash, typeof globalThis.resolveLater, Object.keys(globalThis).length]`,
      second,
    )
    expect(seen).toEqual(['undefined', 'undefined', 0])
    expect(second.names).toEqual(['slow'])
    expect(first.calls.map((c) => c.name)).toEqual(['slow'])
  }, 30_000)

  it("an intrinsic polluted under a registered symbol, and a stack hook set from a late callback, are not in the next run's context", async () => {
    await value(
      `Object.prototype[Symbol.for('codeact.leak')] = 'run one'
       Array.prototype[Symbol.for('codeact.leak')] = 'run one'
       Symbol.for('codeact.only-in-run-one')
       Promise.resolve().then(() => { Error.prepareStackTrace = () => 'patched'; Error.stackTraceLimit = 0 })
       return 1`,
    )
    const seen = await value(
      `return {
        object: ({})[Symbol.for('codeact.leak')] ?? null,
        array: [][Symbol.for('codeact.leak')] ?? null,
        hook: typeof Error.prepareStackTrace,
        limit: Error.stackTraceLimit,
        stack: typeof new Error('x').stack === 'string' && new Error('x').stack.includes('patched'),
      }`,
    )
    expect(seen).toEqual({ object: null, array: null, hook: 'undefined', limit: 10, stack: false })
  }, 30_000)

  it('a realm armed ahead for one tool list never serves a run with another', async () => {
    // Two runs with the same tools: the pool then arms realms ahead for that list.
    for (let i = 0; i < 3; i++) await value('return 1', new RecordingHost(), ['echo', 'noop', 'fail', 'slow'])
    const other = new RecordingHost()
    const seen = await value(`return { names: Object.keys(tools).sort(), echo: typeof tools.echo, noop: typeof tools.noop }`, other, [
      'noop',
    ])
    // (Any other name is a stub that reaches the host for its ENOSYS: `typeof tools.echo` is 'function' anyway.)
    expect(seen).toEqual({ names: ['noop'], echo: 'function', noop: 'function' })
    await value('return await tools.echo({ x: 1 })', other, ['noop'])
    expect(other.names).toEqual(['echo'])
    // And back: the first list is whole again, not the one-tool realm reused.
    const back = await value('return Object.keys(tools).sort()', new RecordingHost(), ['echo', 'noop', 'fail', 'slow'])
    expect(back).toEqual(['echo', 'fail', 'noop', 'slow'])
  }, 30_000)
})

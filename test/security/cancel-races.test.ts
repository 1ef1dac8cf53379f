/**
 * A run cancelled or timed out while its calls are in flight, from the user's and the attacker's side. The host
 * reads a plain `cancelled` flag per call (runtime/run-code.ts), calls are armed for cancellation at the end of
 * their turn (runtime/call-arming.ts), and a tool's `ctx.signal` is a getter whose controller is made when first
 * read (runtime/dispatch.ts CallContext). Whatever the moment of the cancel:
 * - no tool starts after it (not a queued call, not one whose hook or approval answers later);
 * - a tool still running sees `ctx.signal` abort, whether it read the signal before the cancel or after;
 * - every `tool/call` of the run has exactly one `tool/result`, and the run ends as cancelled (or timed out).
 *
 * What breaks them: a flag not set by every way the run is stopped, a scheduler that starts a staged call
 * without looking at `aborted`, a call armed in a group that misses a cancel made in its own turn, a signal()
 * that does not abort a controller made after the stop.
 */
import { describe, expect, it } from 'vitest'
import type { AnyToolDefinition, RunResult, ToolContext } from '../../vocabulary/types.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

/** What the tools saw, against the moment the test cancelled. */
interface Watch {
  cancelled: boolean
  started: number
  startedAfterCancel: number
  abortedSignals: number
  /** Resolved when `started` reaches `waitFor`. */
  waitFor: number
  reached: () => void
}

function watch(): { w: Watch; reached: Promise<void> } {
  let reached!: () => void
  const p = new Promise<void>((r) => (reached = r))
  return { w: { cancelled: false, started: 0, startedAfterCancel: 0, abortedSignals: 0, waitFor: Infinity, reached }, reached: p }
}

function started(w: Watch): void {
  w.started++
  if (w.cancelled) w.startedAfterCancel++
  if (w.started === w.waitFor) w.reached()
}

/** `hang` waits for its signal (or 20 s); `quick` answers in a microtask; `sync` answers at once. */
function tools(w: Watch, extra: { onSignal?: (ctx: ToolContext) => void } = {}): AnyToolDefinition[] {
  const hang: AnyToolDefinition = {
    name: 'hang',
    description: 'Waits until its signal aborts.',
    parameters: { type: 'object', properties: {} },
    execute: (_args: unknown, ctx: ToolContext) => {
      started(w)
      const signal = ctx.signal
      extra.onSignal?.(ctx)
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('not aborted'), 20_000)
        signal.addEventListener('abort', () => {
          w.abortedSignals++
          clearTimeout(timer)
          resolve('aborted')
        })
      })
    },
  }
  const quick: AnyToolDefinition = {
    name: 'quick',
    description: 'Answers in a microtask.',
    parameters: { type: 'object', properties: { i: { type: 'number' } } },
    execute: async () => {
      started(w)
      return 1
    },
  }
  const sync: AnyToolDefinition = {
    name: 'sync',
    description: 'Answers at once.',
    parameters: { type: 'object', properties: {} },
    execute: () => {
      started(w)
      return 1
    },
  }
  return [hang, quick, sync]
}

function expectConsistent(r: RunResult): void {
  expect(unmatchedCalls(r.events)).toEqual([])
  const types = r.events.map((e) => e.type)
  expect(types[0]).toBe('run/start')
  expect(types.at(-1)).toBe('run/end')
  expect(types.filter((t) => t === 'run/end')).toHaveLength(1)
}

describe('a run cancelled with its calls in flight', () => {
  it('the calls running see ctx.signal abort, the queued ones never start, and every call has its one result', async () => {
    const { w, reached } = watch()
    w.waitFor = 2
    const rt = await testRuntime({ tools: tools(w), limits: { maxParallelToolCalls: 2 } })
    const controller = new AbortController()
    const run = rt.runCode('await Promise.all(Array.from({ length: 20 }, () => tools.hang({})))', { signal: controller.signal })
    await reached
    w.cancelled = true
    controller.abort()
    const r = await run
    expect(r.error?.kind, r.observation).toBe('aborted')
    expect(w).toMatchObject({ started: 2, startedAfterCancel: 0, abortedSignals: 2 })
    expectConsistent(r)
    const results = r.calls.map((c) => (c.ok ? 'ok' : c.error?.code))
    expect(
      results.every((code) => code === 'ECANCELED'),
      JSON.stringify(results),
    ).toBe(true)
  }, 30_000)

  it('cancelled at every moment of a burst of sequential and parallel calls: no tool starts after the cancel', async () => {
    const { w } = watch()
    const rt = await testRuntime({ tools: tools(w), limits: { maxParallelToolCalls: 4 } })
    const program = `for (let i = 0; i < 300; i++) {
  await tools.quick({ i })
  tools.sync({})
  if (i % 10 === 0) await Promise.all([tools.quick({ i }), tools.quick({ i }), tools.sync({}), tools.quick({ i }), tools.quick({ i })])
}`
    for (let round = 0; round < 12; round++) {
      w.cancelled = false
      w.started = w.startedAfterCancel = 0
      const controller = new AbortController()
      const run = rt.runCode(program, { signal: controller.signal })
      // A different moment each round: a few ms into the run, from a timer, an immediate or a microtask after it.
      await new Promise((r) => setTimeout(r, 5 + round * 3))
      const cancelNow = () => {
        w.cancelled = true
        controller.abort()
      }
      if (round % 3 === 0) cancelNow()
      else if (round % 3 === 1) setImmediate(cancelNow)
      else queueMicrotask(cancelNow)
      const r = await run
      expect(w.startedAfterCancel, `round ${round}: ${w.started} started`).toBe(0)
      expectConsistent(r)
      if (r.error) expect(r.error.kind, r.observation).toBe('aborted')
    }
  }, 60_000)

  it('a tool that reads ctx.signal only after the cancel finds it already aborted', async () => {
    const { w, reached } = watch()
    w.waitFor = 1
    let later: AbortSignal | undefined
    let read!: () => void
    const readDone = new Promise<void>((r) => (read = r))
    let go!: () => void
    const gate = new Promise<void>((r) => (go = r))
    const late: AnyToolDefinition = {
      name: 'late',
      description: 'Reads its signal after the test lets it.',
      parameters: { type: 'object', properties: {} },
      execute: async (_a: unknown, ctx: ToolContext) => {
        started(w)
        await gate
        later = ctx.signal
        read()
        return later.aborted
      },
    }
    const rt = await testRuntime({ tools: [late] })
    const controller = new AbortController()
    const run = rt.runCode('return await tools.late({})', { signal: controller.signal })
    await reached
    controller.abort()
    go()
    await readDone
    expect(later?.aborted).toBe(true)
    const r = await run
    expect(r.error?.kind).toBe('aborted')
    expectConsistent(r)
  }, 30_000)

  // With the call started in the same turn as the cancel: the call is armed at the end of its turn
  // (call-arming.ts), so before the fix its signal stayed live until then, after the run was cancelled.
  it('a tool holding its signal when the run is cancelled in the turn the call started: aborted as soon as the cancel returns', async () => {
    const { w } = watch()
    const controller = new AbortController()
    let held: AbortSignal | undefined
    const holder: AnyToolDefinition = {
      name: 'holder',
      description: 'Keeps its signal; the test cancels the run in this same turn.',
      parameters: { type: 'object', properties: {} },
      execute: (_a: unknown, ctx: ToolContext) => {
        started(w)
        held = ctx.signal
        // Still in the call's first turn: the run is cancelled from outside (a user's Ctrl-C in this tick).
        queueMicrotask(() => {
          controller.abort()
          w.abortedSignals += held?.aborted ? 1 : 0
        })
        return new Promise(() => {})
      },
    }
    const rt = await testRuntime({ tools: [holder] })
    const r = await rt.runCode('return await tools.holder({})', { signal: controller.signal })
    expect(r.error?.kind, r.observation).toBe('aborted')
    expect(w.abortedSignals, 'the signal was still live right after the cancel').toBe(1)
    expectConsistent(r)
  }, 30_000)

  it('a tool that cancels its own run (in its first turn) sees its signal abort, and the next call never starts', async () => {
    const { w } = watch()
    const controller = new AbortController()
    let sawAbort: boolean | undefined
    let done!: () => void
    const toolDone = new Promise<void>((r) => (done = r))
    const self: AnyToolDefinition = {
      name: 'self',
      description: 'Cancels the run it is called from.',
      parameters: { type: 'object', properties: {} },
      execute: async (_a: unknown, ctx: ToolContext) => {
        started(w)
        const signal = ctx.signal
        w.cancelled = true
        controller.abort()
        // The cancel came in the call's own turn, before it was armed: it is seen when it is.
        await new Promise((r) => setImmediate(r))
        await new Promise((r) => setImmediate(r))
        sawAbort = signal.aborted
        done()
        return 1
      },
    }
    const rt = await testRuntime({ tools: [self, ...tools(w)] })
    const r = await rt.runCode('await tools.self({})\nawait tools.quick({ i: 1 })\ntools.sync({})', { signal: controller.signal })
    expect(r.error?.kind, r.observation).toBe('aborted')
    // The run is over when the call is cancelled; the tool goes on to its end on its own.
    await toolDone
    expect(sawAbort).toBe(true)
    expect(w).toMatchObject({ started: 1, startedAfterCancel: 0 })
    expectConsistent(r)
  }, 30_000)

  it('a call waiting on its approval when the run is cancelled: the handler is told, and a yes after it runs nothing', async () => {
    const { w } = watch()
    let asked!: (signal: AbortSignal) => void
    const askedFor = new Promise<AbortSignal>((r) => (asked = r))
    let answer!: (yes: boolean) => void
    const rt = await testRuntime({
      tools: tools(w),
      approve: ['quick'],
      onApproval: (_req, signal) => {
        asked(signal)
        return new Promise<boolean>((r) => (answer = r))
      },
    })
    const controller = new AbortController()
    const run = rt.runCode('await tools.quick({ i: 1 })\nawait tools.quick({ i: 2 })', { signal: controller.signal })
    const signal = await askedFor
    w.cancelled = true
    controller.abort()
    expect(signal.aborted).toBe(true)
    answer(true)
    const r = await run
    expect(r.error?.kind, r.observation).toBe('aborted')
    expect(w.started).toBe(0)
    expectConsistent(r)
  }, 30_000)

  it('a call held in an async pre-execute hook when the run is cancelled: the hook lets it through after, and it never runs', async () => {
    const { w } = watch()
    const rt = await testRuntime({ tools: tools(w) })
    let inHook!: () => void
    const hooked = new Promise<void>((r) => (inHook = r))
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    rt.hooks.on('pre-execute', async () => {
      inHook()
      await held
      return undefined
    })
    const controller = new AbortController()
    const run = rt.runCode('await Promise.all([tools.quick({ i: 1 }), tools.sync({}), tools.quick({ i: 3 })])', {
      signal: controller.signal,
    })
    await hooked
    w.cancelled = true
    controller.abort()
    release()
    const r = await run
    expect(r.error?.kind, r.observation).toBe('aborted')
    expect(w.started).toBe(0)
    expectConsistent(r)
  }, 30_000)
})

describe('a run timed out with its calls in flight', () => {
  it("the run's deadline stops the tool (its signal aborts) and nothing queued starts", async () => {
    const { w } = watch()
    // The wall clock (deadlineMs): waiting on a tool is not program time (timeoutMs).
    const rt = await testRuntime({ tools: tools(w), limits: { deadlineMs: 400, maxParallelToolCalls: 1 } })
    const r = await rt.runCode('await Promise.all([tools.hang({}), tools.hang({}), tools.hang({})])')
    expect(r.error?.kind, r.observation).toBe('timeout')
    expect(w).toMatchObject({ started: 1, abortedSignals: 1 })
    expectConsistent(r)
  }, 30_000)

  it("a tool's own deadline aborts its signal and answers ETIMEDOUT; the program goes on", async () => {
    const { w } = watch()
    const [hang, ...rest] = tools(w)
    const rt = await testRuntime({ tools: [{ ...hang!, timeoutMs: 100 }, ...rest] })
    const r = await rt.runCode(
      'try { await tools.hang({}) } catch (e) { return (e as { code?: string }).code + " " + String(await tools.quick({ i: 1 })) }',
    )
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe('ETIMEDOUT 1')
    expect(w).toMatchObject({ started: 2, abortedSignals: 1 })
    expectConsistent(r)
  }, 30_000)
})

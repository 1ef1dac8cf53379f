/**
 * Faults around the isolate backend: the sandbox process killed mid-call, tools that ignore their abort
 * signal or return what JSON cannot hold, two runtimes side by side, and `close()` with runs in flight.
 * After each: a typed outcome, every `tool/call` answered, no stray process, and the next run works.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { unansweredCalls } from '../security/log-invariants.js'
import { alive, isolateChildren, waitFor } from './processes.js'

const OPEN = { type: 'object' } as const

/** A tool that tells the test it started, then waits for its abort signal (or `ms`). */
function blockingTool(started: () => void): AnyToolDefinition {
  return {
    name: 'block',
    description: 'Blocks until aborted.',
    parameters: OPEN,
    execute: (_args, ctx) =>
      new Promise((resolve) => {
        started()
        ctx.signal.addEventListener('abort', () => resolve('aborted'))
      }),
  }
}

const echo: AnyToolDefinition = { name: 'echo', description: 'Returns its arguments.', parameters: OPEN, execute: (a: unknown) => a }

const opened: Runtime[] = []
async function open(tools: AnyToolDefinition[]): Promise<Runtime> {
  const rt = await createRuntime({ tools: [echo, ...tools], typecheck: 'off' })
  opened.push(rt)
  await rt.sandbox.start()
  return rt
}

afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close()
  // Nothing this suite started is left running once its runtimes are closed.
  expect(await waitFor(() => isolateChildren().length === 0)).toBe(true)
})

async function expectNextRunWorks(rt: Runtime): Promise<void> {
  const next = await rt.runCode('return [1 + 1, await tools.echo({ again: true })]')
  expect(next.error, next.observation).toBeNull()
  expect(next.value).toEqual([2, { again: true }])
}

describe('isolate faults', () => {
  it('the sandbox process killed while a tool call is pending: a typed runtime error, then a fresh process', async () => {
    let started!: () => void
    const callStarted = new Promise<void>((r) => (started = r))
    const rt = await open([blockingTool(() => started())])
    const [child] = isolateChildren()
    expect(child).toBeDefined()
    const run = rt.runCode('await tools.block({}); return "unreachable"')
    await callStarted
    process.kill(child!.pid, 'SIGKILL')
    const result = await run
    expect(result.ok).toBe(false)
    expect(result.error?.kind).toBe('runtime')
    expect(result.error?.message).toMatch(/sandbox process died/)
    expect(result.calls.map((c) => [c.name, c.ok])).toEqual([['block', false]])
    expect(unansweredCalls(rt.log.all())).toEqual([])
    expect(await waitFor(() => !alive(child!.pid))).toBe(true)
    await expectNextRunWorks(rt)
    const replacement = isolateChildren()
    expect(replacement.length).toBe(1)
    expect(replacement[0]!.pid).not.toBe(child!.pid)
  })

  it('a tool that ignores its abort signal: the run times out, the call still gets exactly one result', async () => {
    let finished = false
    const stubborn: AnyToolDefinition = {
      name: 'stubborn',
      description: 'Ignores its signal.',
      parameters: OPEN,
      execute: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            finished = true
            resolve('too late')
          }, 3000),
        ),
    }
    const rt = await open([stubborn])
    // The wait on the call is not program time; the run's deadline ends it.
    const result = await rt.runCode('return await tools.stubborn({})', { limits: { timeoutMs: 800, deadlineMs: 1200 } })
    expect(result.error?.kind).toBe('timeout')
    expect(result.error?.message).toMatch(/still waiting on: stubborn/)
    expect(result.calls).toHaveLength(1)
    expect(result.calls[0]!.error?.code).toBe('ECANCELED')
    expect(unansweredCalls(rt.log.all())).toEqual([])
    await expectNextRunWorks(rt)
    // The tool's late answer changes nothing: still one result for its call.
    expect(await waitFor(() => finished, 10_000)).toBe(true)
    await new Promise((r) => setTimeout(r, 50))
    expect(unansweredCalls(rt.log.all())).toEqual([])
  })

  it('tools that return a BigInt, a cycle or a function: EIO or null, never a crash', async () => {
    const cycle: Record<string, unknown> = {}
    cycle['self'] = cycle
    const rt = await open([
      { name: 'big', description: 'BigInt', parameters: OPEN, execute: () => ({ n: 10n }) },
      { name: 'cyclic', description: 'a cycle', parameters: OPEN, execute: () => cycle },
      { name: 'fn', description: 'a function', parameters: OPEN, execute: () => () => 1 },
      {
        name: 'throws_odd',
        description: 'throws a non-Error',
        parameters: OPEN,
        execute: () => {
          throw Symbol('odd')
        },
      },
    ])
    const result = await rt.runCode(`
      const out = []
      for (const name of ['big', 'cyclic', 'fn', 'throws_odd']) {
        try { out.push(['ok', await tools[name]({})]) } catch (e) { out.push([e.code]) }
      }
      return out`)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toEqual([['EIO'], ['EIO'], ['ok', null], ['ETOOL']])
    expect(unansweredCalls(rt.log.all())).toEqual([])
    await expectNextRunWorks(rt)
  })

  it('two runtimes in one process keep their own processes, logs and runs', async () => {
    const a = await open([])
    const b = await open([])
    const [ra, rb] = await Promise.all([
      a.runCode('return await tools.echo({ who: "a" })'),
      b.runCode('for (;;) {}', { limits: { timeoutMs: 800 } }),
    ])
    expect(ra.value).toEqual({ who: 'a' })
    expect(rb.error?.kind).toBe('timeout')
    expect(a.log.all().some((e) => e.type === 'run/start' && (e.data as { code: string }).code.includes('for (;;)'))).toBe(false)
    expect(isolateChildren().length).toBe(2)
    await b.close()
    await expectNextRunWorks(a)
  })

  it('close() while runs are in flight: each run resolves with a typed outcome, every call answered', async () => {
    let started = 0
    const rt = await open([blockingTool(() => void started++)])
    const runs = [1, 2, 3].map(() => rt.runCode('await tools.block({}); return "unreachable"'))
    expect(await waitFor(() => started === 3)).toBe(true)
    await rt.close()
    const results = await Promise.all(runs)
    for (const r of results) {
      expect(r.ok).toBe(false)
      expect(['aborted', 'sandbox_unavailable']).toContain(r.error?.kind)
    }
    expect(unansweredCalls(rt.log.all())).toEqual([])
    expect(() => rt.runCode('return 1')).toThrow(/closed/)
    const fresh = await open([])
    await expectNextRunWorks(fresh)
  })
})

/**
 * The wait for the type check's verdict is invisible to the program (issue 35). On the isolate backend a
 * program starts before its check answers and its calls wait at the verdict gate; while they wait, the
 * program's clock and timers stand still (guest/held-clock.ts), so its own `Promise.race([call, timeout])`
 * around a quick call does not fire because the checker was slow. In a container the program starts only
 * after its verdict, so there is nothing to hide; the same program proves it there too.
 *
 * The load is real: child processes burning every core for the whole test. The slow checker is the
 * runtime's test seam (verdictTiming) holding each verdict back, so the wait is certain on any machine.
 * A timeout the program means (a call slower than its race, after the verdict) still fires: the clock
 * stands still only while calls are held.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import { verdictTiming } from '../../runtime/typecheck.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const call: AnyToolDefinition = {
  name: 'call',
  description: 'Answers after `ms` milliseconds.',
  parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  output: { type: 'string' },
  execute: async ({ ms }: { ms: number }) => {
    await sleep(ms)
    return 'answered'
  },
}

/** A model's timeout around a call, and how much time the program saw pass. */
const RACE = (
  callMs: number,
  timeoutMs: number,
) => `const timeout = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), ms))
const t0 = Date.now()
const outcome = await Promise.race([tools.call({ ms: ${callMs} }), timeout(${timeoutMs})])
return { outcome, seen: Date.now() - t0 }`

/** Well-typed statements whose check is slow (a container's program waits for it before it starts). */
const SLOW_CHECK = Array.from({ length: 1000 }, (_, i) => `const f${i}: { a: number; b: string } = { a: ${i}, b: 'x${i}' }`).join('\n')

/** The checker's verdict comes this long after the check: far past the program's 2 s timeout. */
const SLOW_CHECKER_MS = 3500

let burners: ChildProcess[] = []
beforeAll(() => {
  burners = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
})
afterAll(() => {
  for (const b of burners) b.kill('SIGKILL')
})
afterEach(() => {
  verdictTiming.delayMs = undefined
})

async function checkedRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await createRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [call], ...options })
  // The tool's first call (its validator built, its hooks looked up) is host work of its own, not the checker's.
  const warm = await rt.runCode('return await tools.call({ ms: 0 })')
  expect(warm.error, warm.observation).toBeNull()
  return rt
}

async function timed(rt: Runtime, code: string) {
  const started = Date.now()
  const r = await rt.runCode(code)
  return { r, wall: Date.now() - started }
}

describe('isolate: the program does not see the wait for its verdict', () => {
  let rt: Runtime
  beforeAll(async () => {
    rt = await checkedRuntime()
  }, 60_000)
  afterAll(async () => {
    await rt?.close()
  })

  it('a 2 s timeout around a 50 ms call does not fire while a slow checker holds the call', async () => {
    verdictTiming.delayMs = SLOW_CHECKER_MS
    const { r, wall } = await timed(rt, RACE(50, 2000))
    expect(r.error, r.observation).toBeNull()
    const value = r.value as { outcome: string; seen: number }
    expect(value.outcome).toBe('answered')
    // The run took the checker's time; the program's clock did not count the hold.
    expect(wall).toBeGreaterThanOrEqual(SLOW_CHECKER_MS)
    expect(value.seen).toBeLessThan(wall - SLOW_CHECKER_MS / 2)
  }, 60_000)

  it('its own timeout still fires when the call itself is slower than it, after the verdict', async () => {
    verdictTiming.delayMs = 1000
    const r = await rt.runCode(RACE(3000, 300))
    expect(r.error, r.observation).toBeNull()
    expect((r.value as { outcome: string }).outcome).toBe('timed out')
  }, 60_000)

  it('timers and Date.now() stand still through the hold: an interval counts only program time', async () => {
    verdictTiming.delayMs = SLOW_CHECKER_MS
    const r = await rt.runCode(`let ticks = 0
const every = setInterval(() => ticks++, 100)
const before = Date.now()
await tools.call({ ms: 0 })
const after = Date.now()
clearInterval(every)
return { ticks, held: after - before }`)
    expect(r.error, r.observation).toBeNull()
    const value = r.value as { ticks: number; held: number }
    expect(value.held).toBeLessThan(2000)
    expect(value.ticks).toBeLessThan(20)
  }, 60_000)
})

describe('isolate: a program that locked its globals down before the hold', () => {
  let rt: Runtime
  beforeAll(async () => {
    rt = await checkedRuntime()
  }, 60_000)
  afterAll(async () => {
    await rt?.close()
  })

  it('froze Date and the global object: the run still answers, and its timers still stand still', async () => {
    verdictTiming.delayMs = SLOW_CHECKER_MS
    const r = await rt.runCode(`Object.freeze(Date)\nObject.freeze(Date.prototype)\nObject.freeze(globalThis)\n${RACE(50, 2000)}`)
    expect(r.error, r.observation).toBeNull()
    expect((r.value as { outcome: string }).outcome).toBe('answered')
    const after = await rt.runCode('return typeof Date.now()')
    expect(after.value).toBe('number')
  }, 60_000)
})

describe.skipIf(process.env['CODEACT_DOCKER'] !== '1' || !dockerEngine.available)(
  'docker: the program starts after its verdict, so its timeout does not see the wait',
  () => {
    let rt: Runtime
    beforeAll(async () => {
      await ensureImage()
      rt = await checkedRuntime({ sandbox: 'docker', docker: { poolSize: 1 } })
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
    })

    it('a 2 s timeout around a 50 ms call does not fire while a slow checker is at work', async () => {
      verdictTiming.delayMs = SLOW_CHECKER_MS
      const r = await rt.runCode(`${SLOW_CHECK}\n${RACE(50, 2000)}`)
      expect(r.error, r.observation).toBeNull()
      expect((r.value as { outcome: string }).outcome).toBe('answered')
    }, 120_000)
  },
)

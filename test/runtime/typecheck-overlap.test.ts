/**
 * The type check overlapped with the run (isolate backend): the program starts as soon as it is compiled,
 * and until the check's verdict nothing of it reaches the world. A blocking verdict ends the run as the
 * type error it always was, with nothing of the attempt in its result.
 *
 * The race is made real two ways: a large well-typed program around the statements under test (its check
 * takes far longer than the program needs to reach its first call), and the runtime's test seam that holds a
 * verdict back (verdictTiming), so the order is certain on any machine; and the other way round, a program
 * that sleeps before it does anything. What the program asked of the host before the runtime's gate, and how
 * the run ended in the sandbox, are seen from the backend's side: a wrapper around a real isolate sandbox.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { Runtime, RuntimeOptions } from '../../runtime/create-runtime.js'
import { verdictTiming } from '../../runtime/typecheck.js'
import type { AnyToolDefinition, RunResult } from '../../vocabulary/types.js'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { testRuntime } from '../support/runtime.js'
import { watchedSandbox } from '../support/watched-sandbox.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'codeact-overlap-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
afterEach(() => {
  verdictTiming.delayMs = undefined
})
/** A verdict held back this long is certainly after the program reached what comes before its error. */
const LATE_MS = 400

/** Every way a call could reach the world, counted. */
function counters() {
  const c = { executed: 0, hooked: 0, asked: 0 }
  const touch: AnyToolDefinition = {
    name: 'touch',
    description: 'Counts its calls.',
    parameters: { type: 'object', properties: { i: { type: 'number' } }, required: ['i'] },
    output: { type: 'number' },
    execute: ({ i }: { i: number }) => {
      c.executed++
      return i
    },
  }
  return { c, touch }
}

/**
 * Well-typed statements whose check takes long (~50–250 ms) beside a program that reaches its first call in a
 * millisecond; under oxc's 64 KB (a program esbuild compiles is compiled after its check: nothing to overlap).
 */
const SLOW = Array.from({ length: 1000 }, (_, i) => `const f${i}: { a: number; b: string } = { a: ${i}, b: 'x${i}' }`).join('\n')
/** A blocking type error (a misspelled method), after whatever comes before it. */
const TYPE_ERROR = 'const n = 1\nn.toFixedd()'

async function overlapRuntime(options: RuntimeOptions & { overlappable?: boolean } = {}) {
  const { c, touch } = counters()
  const { sandbox, seen } = watchedSandbox(options.overlappable ?? true)
  const root = mkdtempSync(join(base, 'ws-'))
  const rt = await testRuntime({
    typecheck: 'error',
    // A loaded machine must not turn these checks into skipped ones (the budget's own behaviour is as before).
    typecheckBudgetMs: 60_000,
    tools: [touch],
    sandbox,
    workspace: { root },
    approve: ['touch'],
    onApproval: () => {
      c.asked++
      return true
    },
    ...options,
  })
  // Warm: a sandbox process up and a checker built, so a program starts within a few ms of its compile.
  const warm = await rt.runCode('return 0')
  if (warm.error) throw new Error(warm.observation)
  seen.runs = 0
  seen.outcomes.length = 0
  rt.hooks.on('pre-execute', () => void c.hooked++)
  return { rt, c, seen, root }
}

/** The type error exactly as when the check came first: nothing ran, nothing of the attempt in the result. */
function expectStoppedClean(r: RunResult, c: { executed: number; hooked: number; asked: number }, root: string): void {
  expect(r.error?.kind, r.observation).toBe('type')
  expect(r.error?.message).toMatch(/^the program does not type-check; nothing ran\.\n\d+:\d+ Property 'toFixedd' does not exist/)
  expect(r.observation).toMatch(/^Error \(type\): the program does not type-check; nothing ran\./)
  expect(r.observation).not.toMatch(/Logs|Calls|touch/)
  expect(r.calls).toEqual([])
  expect(r.logs).toEqual([])
  expect(r.events.map((e) => e.type)).toEqual(['run/start', 'run/end'])
  expect(c).toEqual({ executed: 0, hooked: 0, asked: 0 })
  expect(existsSync(join(root, 'out.txt'))).toBe(false)
}

/** The runtime still runs programs after the aborted attempt (its isolate went back or was replaced). */
async function expectStillRuns(rt: Runtime): Promise<void> {
  const after = await rt.runCode('return await tools.touch({ i: 7 })')
  expect(after.error, after.observation).toBeNull()
  expect(after.value).toBe(7)
}

describe('type check overlapped with the run: nothing reaches the world before the verdict', () => {
  it('a type error after the first tool call: the call waits at the gate and is never executed, hooked or asked about', async () => {
    const { rt, c, seen, root } = await overlapRuntime()
    const r = await rt.runCode(
      `console.log('before')\nawait tools.write_file({ path: 'out.txt', content: 'x' })\nawait tools.touch({ i: 1 })\nconsole.log('after')\n${SLOW}\n${TYPE_ERROR}`,
    )
    expectStoppedClean(r, c, root)
    // The program really got there before the verdict: its line and its first call reached the host.
    expect(seen.lines).toBe(1)
    expect(seen.calls).toBe(1)
    expect(seen.outcomes[0]?.ok === false && seen.outcomes[0].error.kind).toBe('aborted')
    await expectStillRuns(rt)
  })

  it('the verdict first: a program still asleep when it comes is aborted before it does anything', async () => {
    const { rt, c, seen, root } = await overlapRuntime()
    const r = await rt.runCode(
      `await new Promise((wake) => setTimeout(wake, 3000))\nawait tools.touch({ i: 1 })\nconsole.log('woke')\n${TYPE_ERROR}`,
    )
    expectStoppedClean(r, c, root)
    expect(seen.calls).toBe(0)
    expect(seen.outcomes[0]?.ok === false && seen.outcomes[0].error.kind).toBe('aborted')
    await expectStillRuns(rt)
  })

  it('a program that loops forever before the error ends as the type error, not a timeout', async () => {
    const { rt, c, root } = await overlapRuntime({ limits: { timeoutMs: 60_000 } })
    verdictTiming.delayMs = LATE_MS
    const r = await rt.runCode(`console.log('spinning')\nwhile (true) {}\n${TYPE_ERROR}`)
    expectStoppedClean(r, c, root)
    await expectStillRuns(rt)
  }, 30_000)

  it('a program that returns before the verdict waits for it, and its output is dropped', async () => {
    const { rt, c, seen, root } = await overlapRuntime()
    verdictTiming.delayMs = LATE_MS
    const r = await rt.runCode(`console.log('done early')\nif (Date.now() > 0) return 1\n${TYPE_ERROR}`)
    expectStoppedClean(r, c, root)
    // It finished in the sandbox, value and all, before the verdict came.
    expect(seen.outcomes[0], JSON.stringify(seen.outcomes)).toMatchObject({ ok: true, valueJson: '1' })
    expect(seen.lines).toBe(1)
  })

  it('a program that allocates until the memory limit ends as the type error', async () => {
    const { rt, c, seen, root } = await overlapRuntime({ limits: { memoryMb: 32 } })
    // Reaching the limit takes a few hundred ms on a loaded machine: the verdict comes well after.
    verdictTiming.delayMs = 8 * LATE_MS
    const r = await rt.runCode(`const hoard: number[][] = []\nwhile (true) hoard.push(new Array(1 << 20).fill(1))\n${TYPE_ERROR}`)
    expectStoppedClean(r, c, root)
    expect(seen.outcomes[0]?.ok === false && seen.outcomes[0].error.kind, JSON.stringify(seen.outcomes)).toBe('memory')
    await expectStillRuns(rt)
  }, 30_000)

  it('a fan-out of 100 calls before the error: all wait, none is executed', async () => {
    const { rt, c, seen, root } = await overlapRuntime()
    verdictTiming.delayMs = LATE_MS
    const r = await rt.runCode(
      `console.log('fan out')\nawait Promise.all(Array.from({ length: 100 }, (_, i) => tools.touch({ i })))\n${TYPE_ERROR}`,
    )
    expectStoppedClean(r, c, root)
    expect(seen.calls).toBe(100)
  })

  it('the wait on the verdict is not program time: a call held longer than the program timeout still runs', async () => {
    const { rt, c, seen } = await overlapRuntime({ limits: { timeoutMs: 150 } })
    verdictTiming.delayMs = 4 * LATE_MS
    const r = await rt.runCode('const v = await tools.touch({ i: 2 })\nreturn v')
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe(2)
    expect(c.executed).toBe(1)
    expect(seen.longestCallMs).toBeGreaterThan(4 * LATE_MS - 50)
  })
})

describe('type check overlapped with the run: a well-typed program runs as before', () => {
  const program = `console.log('start')
const pairs = await Promise.all([1, 2, 3].map(async (i) => { const v = await tools.touch({ i }); console.log('got', v); return v }))
await tools.write_file({ path: 'out.txt', content: String(pairs) })
console.log('end')
${SLOW}
return pairs.reduce((a, b) => a + b, 0)`

  /** The parts of a result that do not depend on when it ran (ids are per run, durations per call). */
  const comparable = (r: RunResult) => ({
    ok: r.ok,
    value: r.value,
    error: r.error,
    logs: r.logs,
    calls: r.calls.map(({ name, args, result }) => ({ name, args, result })),
    // As a set: parallel calls reach the host in one batch or in several, whatever the check did.
    events: r.events.map((e) => e.type).sort(),
    observation: r.observation.replace(/\d+(\.\d+)? ?ms/g, '_ms').replace(/run_[0-9a-f]{8}/g, 'run_'),
  })

  it('gives the same value, logs, calls, events and observation as a run after its check', async () => {
    const overlapped = await overlapRuntime()
    const sequential = await overlapRuntime({ overlappable: false })
    verdictTiming.delayMs = LATE_MS
    const a = await overlapped.rt.runCode(program)
    const b = await sequential.rt.runCode(program)
    expect(a.error, a.observation).toBeNull()
    expect(comparable(a)).toEqual(comparable(b))
    expect(a.value).toBe(6)
    expect(a.logs.map((l) => l.text)).toEqual(['start', 'got 1', 'got 2', 'got 3', 'end'])
    expect(overlapped.c).toEqual({ executed: 3, hooked: 4, asked: 3 })
    // The overlapped one did start before its verdict: its first line and calls were held, then let through.
    expect(overlapped.seen.lines).toBeGreaterThan(0)
  })

  it("in warn mode nothing waits: the program runs in full, with the check's warnings after", async () => {
    const { rt, c, root, seen } = await overlapRuntime({ typecheck: 'warn' })
    verdictTiming.delayMs = 4 * LATE_MS
    const r = await rt.runCode(
      `await tools.write_file({ path: 'out.txt', content: 'x' })\nconst v = await tools.touch({ i: 3 })\n${SLOW}\nconst n = 1\ntry { n.toFixedd() } catch { console.log('caught') }\nreturn v`,
    )
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe(3)
    expect(r.logs.map((l) => l.text)).toEqual(['caught'])
    expect(c.executed).toBe(1)
    expect(existsSync(join(root, 'out.txt'))).toBe(true)
    expect(r.observation).toMatch(/Type-check warnings \(the program ran anyway\):\n\d+:\d+ Property 'toFixedd'/)
    // Its calls were not held for the verdict (which came 1.6 s late).
    expect(seen.longestCallMs).toBeLessThan(4 * LATE_MS)
  })
})

describe('runs that are not overlapped', () => {
  it('a backend whose programs have effects of their own runs nothing before the verdict', async () => {
    const { rt, c, seen, root } = await overlapRuntime({ overlappable: false })
    const r = await rt.runCode(`await tools.touch({ i: 1 })\n${SLOW}\n${TYPE_ERROR}`)
    expectStoppedClean(r, c, root)
    expect(seen.runs).toBe(0)
  })

  it('a session cell is checked before it runs: a cell with a type error never reaches its realm', async () => {
    const { rt, c, seen } = await overlapRuntime()
    const s = rt.session()
    try {
      expect((await s.runCode('const kept = await tools.touch({ i: 4 })\nkept')).value).toBe(4)
      const runsBefore = seen.runs
      const r = await s.runCode(`globalThis.leaked = 1\nawait tools.touch({ i: 5 })\n${SLOW}\n${TYPE_ERROR}`)
      expect(r.error?.kind, r.observation).toBe('type')
      expect(seen.runs).toBe(runsBefore)
      expect(c.executed).toBe(1)
      expect((await s.runCode('typeof (globalThis as { leaked?: number }).leaked')).value).toBe('undefined')
    } finally {
      await s.close()
    }
  })

  it('the isolate backend says its programs reach the world only through the host; Docker says they do not', async () => {
    const isolate = createIsolateSandbox()
    expect(isolate.capabilities.effectsOnlyThroughHost).toBe(true)
    await isolate.close()
    const { createDockerSandbox } = await import('../../sandbox/docker/index.js')
    const docker = createDockerSandbox()
    try {
      expect(docker.capabilities.effectsOnlyThroughHost).toBe(false)
    } finally {
      await docker.close()
    }
  })
})

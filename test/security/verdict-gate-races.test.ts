/**
 * The verdict gate (runtime/verdict-gate.ts, runtime/run-code.ts) from the attacker's side: a program that
 * fails its type check starts before the verdict (the check overlaps the run), so it gets every chance to
 * reach the world first. Whatever path its calls and lines take — a microtask, a timer, a getter or toJSON
 * read while its value is serialised after it returned, a fan-out of 1,000, a catch or finally, an unhandled
 * rejection, a tool function taken off `tools` — none may be executed, hooked or asked about, no line logged,
 * no value returned: the run ends as the type error, and the runtime still works after.
 *
 * The verdict is held back (the runtime's test seam, verdictTiming) so the program has certainly done what it
 * does before the verdict; the backend is watched from the seam, so each test also proves the program's calls
 * reached the host (they were at the gate, not merely never made). Each attack is also run without the type
 * error, where its calls must execute: a pattern that never reaches a tool proves nothing.
 *
 * What breaks them: run-code.ts handing the sandbox `callTool`/`log` without the gate around them, a gate
 * that lets held calls through on block(), or a run that returns the sandbox's value when the verdict blocked.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { verdictTiming } from '../../runtime/typecheck.js'
import type { AnyToolDefinition, RunResult } from '../../vocabulary/types.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'
import { watchedSandbox } from '../support/watched-sandbox.js'

afterEach(() => {
  verdictTiming.delayMs = undefined
})
/** Long enough that the program has reached all it does before the verdict, on a loaded machine. */
const LATE_MS = 1500
const TYPE_ERROR = 'const n = 1\nn.toFixedd()'

async function gatedRuntime() {
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
  const { sandbox, seen } = watchedSandbox()
  const rt = await testRuntime({
    typecheck: 'error',
    typecheckBudgetMs: 60_000,
    tools: [touch],
    sandbox,
    approve: ['touch'],
    onApproval: () => {
      c.asked++
      return true
    },
  })
  const warm = await rt.runCode('return 0')
  if (warm.error) throw new Error(warm.observation)
  seen.outcomes.length = 0
  rt.hooks.on('pre-execute', () => void c.hooked++)
  const reset = () => {
    c.executed = c.hooked = c.asked = 0
    seen.calls = seen.lines = 0
    seen.outcomes.length = 0
  }
  return { rt, c, seen, reset }
}

function expectStoppedClean(r: RunResult, c: { executed: number; hooked: number; asked: number }): void {
  expect(r.error?.kind, r.observation).toBe('type')
  expect(r.error?.message).toMatch(/Property 'toFixedd' does not exist/)
  expect(r.value).toBeUndefined()
  expect(r.calls).toEqual([])
  expect(r.logs).toEqual([])
  expect(r.events.map((e) => e.type)).toEqual(['run/start', 'run/end'])
  expect(r.observation).not.toMatch(/touch|leak|secret/)
  expect(c).toEqual({ executed: 0, hooked: 0, asked: 0 })
}

/** Each attack: its statements (before the type error), and how many calls and lines reach the host. */
/** (`calls` made while the value is serialised never reach the host, checked or not: the run is over by then.) */
const ATTACKS: { name: string; body: string; calls: number; lines?: number; value?: unknown }[] = [
  {
    name: 'calls made from microtasks (queueMicrotask, a then, an async IIFE)',
    body: `queueMicrotask(() => void tools.touch({ i: 1 }))
Promise.resolve().then(() => tools.touch({ i: 2 }))
;(async () => { await null; await tools.touch({ i: 3 }) })()
console.log('leak microtask')
await new Promise((r) => setTimeout(r, 300))`,
    calls: 3,
    lines: 1,
  },
  {
    name: 'calls made from timers, zero-delay and later, after the program body has gone on',
    body: `setTimeout(() => void tools.touch({ i: 1 }), 0)
setTimeout(() => { console.log('leak timer'); void tools.touch({ i: 2 }) }, 20)
await new Promise((r) => setTimeout(r, 300))`,
    calls: 2,
    lines: 1,
  },
  {
    name: "a getter and a toJSON on the returned value, read while it is serialised after the program's end",
    body: `const secret = { get a() { void tools.touch({ i: 1 }); console.log('leak getter'); return 'secret a' }, b: { toJSON() { void tools.touch({ i: 2 }); return 'secret b' } } }
if (Date.now() > 0) return secret`,
    calls: 0,
    lines: 1,
    // What the getters gave, when the check passes: what must not come out when it fails.
    value: { a: 'secret a', b: 'secret b' },
  },
  {
    name: 'a fan-out of 1,000 calls in one Promise.all',
    body: `console.log('leak fan-out')
await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.touch({ i })))`,
    calls: 1000,
    lines: 1,
  },
  {
    name: 'calls in catch and finally of a thrown error, and the error thrown out of the program',
    body: `try { throw new Error('boom') } catch (e) { void tools.touch({ i: 1 }); console.log('leak catch') } finally { void tools.touch({ i: 2 }) }
await new Promise((r) => setTimeout(r, 300))
if (Date.now() > 0) throw new Error('secret thrown out')`,
    calls: 2,
    lines: 1,
  },
  {
    name: 'calls from the rejection handlers of a rejected promise and a then that throws',
    body: `Promise.reject(new Error('secret rejected')).catch(() => tools.touch({ i: 1 }))
void Promise.resolve().then(() => { throw new Error('secret in then') }).then(undefined, () => tools.touch({ i: 2 }))
await new Promise((r) => setTimeout(r, 300))`,
    calls: 2,
  },
  {
    name: 'the tool taken off tools: destructured, by index, through Reflect.apply and call',
    body: `const { touch } = tools
const t2 = tools['touch']
void touch({ i: 1 }); void t2({ i: 2 }); void Reflect.apply(tools.touch, undefined, [{ i: 3 }]); void tools.touch.call(null, { i: 4 })
await new Promise((r) => setTimeout(r, 300))`,
    calls: 4,
  },
]

describe('the verdict gate: a program that fails its check never reaches the world, whatever path it takes', () => {
  for (const attack of ATTACKS) {
    it(attack.name, async () => {
      const { rt, c, seen, reset } = await gatedRuntime()
      // Without the type error the same statements do reach the tool: the attack is real.
      const clean = await rt.runCode(attack.body)
      expect(c.executed, clean.observation).toBe(attack.calls)
      if (attack.value !== undefined) expect(clean.value).toEqual(attack.value)
      expect(unmatchedCalls(clean.events)).toEqual([])
      reset()

      verdictTiming.delayMs = LATE_MS
      const r = await rt.runCode(`${attack.body}\n${TYPE_ERROR}`)
      expectStoppedClean(r, c)
      // The program did get there before the verdict: its calls and lines were at the host, held.
      expect(seen.calls, JSON.stringify(seen.outcomes)).toBe(attack.calls)
      expect(seen.lines).toBe(attack.lines ?? 0)

      verdictTiming.delayMs = undefined
      const after = await rt.runCode('return await tools.touch({ i: 7 })')
      expect(after.error, after.observation).toBeNull()
      expect(after.value).toBe(7)
    }, 60_000)
  }

  it('the verdict in the middle of a fan-out: the calls before it wait, those after it are refused, none runs', async () => {
    const { rt, c, seen } = await gatedRuntime()
    verdictTiming.delayMs = 150
    // Calls keep coming, one every few ms, until well after the verdict (the run is aborted by it).
    const r = await rt.runCode(
      `for (let i = 0; i < 400; i++) { void tools.touch({ i }); await new Promise((r) => setTimeout(r, 2)) }\n${TYPE_ERROR}`,
    )
    expectStoppedClean(r, c)
    expect(seen.calls).toBeGreaterThan(0)
    expect(seen.outcomes[0]?.ok === false && seen.outcomes[0].error.kind).toBe('aborted')
  }, 60_000)
})

/**
 * Sessions from the user's side (issue 15): multi-turn conversations the way strong models write them, run
 * through a real runtime (real isolate, the type check on) in one session each. Each turn's observation is
 * what a model would read; nothing here looks at internals.
 *
 * The corpus is cases/*.ts (one idiom family a file, each exporting `cases: SessionCase[]`).
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunResult } from '../../vocabulary/types.js'
import type { SessionCase, SessionTurn } from './case.js'
import type { Runtime, RuntimeOptions } from '../../runtime/create-runtime.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { sessionRuntime } from './session-api.js'
import { sessionTools, type CountedTools } from './tools.js'

const dir = fileURLToPath(new URL('./cases', import.meta.url))
const families: { family: string; cases: SessionCase[] }[] = []
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  const mod = (await import(`./cases/${file}`)) as { cases: SessionCase[] }
  families.push({ family: file.replace(/\.ts$/, ''), cases: mod.cases })
}

function checkTurn(turn: SessionTurn, r: RunResult, where: string): void {
  const want = turn.expect
  const why = `${where}\n${r.observation}`
  if (want.stopped) {
    expect(r.error?.kind, why).toBe(want.stopped.kind)
    expect(r.error?.message, why).toMatch(want.stopped.message)
    expect(r.calls, `${why}\nstopped before any tool call`).toEqual([])
  } else if (want.failed) {
    expect(r.ok, why).toBe(false)
    expect(r.observation, why).toMatch(want.failed)
  } else {
    expect(r.error, why).toBeNull()
    if ('value' in want) expect(r.value, why).toEqual(want.value)
  }
  if (want.logs) {
    const lines = r.logs.map((l) => l.text)
    let at = 0
    for (const wanted of want.logs) {
      const found = lines.findIndex((l, i) => i >= at && l.includes(wanted))
      expect(found, `${why}\nconsole line "${wanted}" in ${JSON.stringify(lines)}`).toBeGreaterThanOrEqual(0)
      at = found + 1
    }
  }
  if (want.calls)
    expect(
      r.calls.map((c) => c.name),
      why,
    ).toEqual(want.calls)
  if (want.observation) expect(r.observation, why).toMatch(want.observation)
}

function conversations(backend: string, options: Partial<RuntimeOptions>, setup?: () => Promise<void>) {
  describe.each(families)(`conversations (${backend}): $family`, ({ cases }) => {
    let rt: Runtime
    let counted: CountedTools
    beforeAll(async () => {
      await setup?.()
      counted = sessionTools()
      rt = await sessionRuntime({ tools: counted.tools, ...options })
    })
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const before = new Map(counted.counts)
      const s = rt.session()
      try {
        for (const [i, turn] of c.turns.entries()) checkTurn(turn, await s.runCode(turn.code), `turn ${i + 1}:\n${turn.code}`)
      } finally {
        await s.close()
      }
      for (const [name, n] of Object.entries(c.executions ?? {}))
        expect((counted.counts.get(name) ?? 0) - (before.get(name) ?? 0), `executions of ${name}`).toBe(n)
    })
  })
}

conversations('isolate', {})

describe.skipIf(!dockerEngine.available)('docker', () => {
  conversations('docker', { sandbox: 'docker' }, ensureImage)
})

let rt: Runtime
beforeAll(async () => {
  rt = await sessionRuntime({ tools: sessionTools().tools })
})

describe('a session is a conversation of its own', () => {
  it('a stateless run and another session do not see its bindings, even under the same names', async () => {
    const a = rt.session()
    const b = rt.session()
    expect((await a.runCode("const who = 'a'\nconst n = 1\nwho")).value).toBe('a')
    expect((await b.runCode("const who = 'b'\nwho")).value).toBe('b')
    const stateless = await rt.runCode('return who')
    expect(stateless.error?.kind, stateless.observation).toBe('type')
    expect(stateless.error?.message).toMatch(/Cannot find name 'who'/)
    const inB = await b.runCode('return n')
    expect(inB.error?.message, inB.observation).toMatch(/Cannot find name 'n'/)
    expect((await a.runCode('`${who}${n}`')).value).toBe('a1')
    expect((await b.runCode('who')).value).toBe('b')
    await Promise.all([a.close(), b.close()])
  })

  it('runCode(code, { session }) continues a session given as the object or its id', async () => {
    const s = rt.session()
    expect((await s.runCode('let visits = 1\nvisits')).value).toBe(1)
    expect((await rt.runCode('visits += 1\nvisits', { session: s })).value).toBe(2)
    expect((await rt.runCode('visits += 1\nvisits', { session: s.id })).value).toBe(3)
    expect((await s.runCode('visits')).value).toBe(3)
    await s.close()
  })

  it('rt.session({ id }) resumes the conversation of that id', async () => {
    const first = rt.session({ id: 'conv-42' })
    expect(first.id).toBe('conv-42')
    await first.runCode("const topic = 'billing'")
    const again = rt.session({ id: 'conv-42' })
    expect((await again.runCode('topic')).value).toBe('billing')
    await again.close()
  })

  it('native run_code calls of two assistant messages run in the session given to executeToolCalls', async () => {
    const s = rt.session()
    const call = (id: string, code: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'run_code', arguments: JSON.stringify({ code }) },
    })
    const [first] = await rt.executeToolCalls([call('c1', 'const orders = await tools.list_orders({})\norders.length')], { session: s })
    expect(first!.content).toContain('5')
    const [second] = await rt.executeToolCalls([call('c2', "orders.filter((o) => o.customer === 'acme').length")], { session: s })
    expect(second!.content).toContain('2')
    expect(second!.content).not.toMatch(/Cannot find name/)
    await s.close()
  })

  it('two run_code calls of one assistant message (parallel tool calls) run in the session in the model order', async () => {
    const s = rt.session()
    const call = (id: string, code: string) => ({ type: 'tool_use' as const, id, name: 'run_code', input: { code } })
    const out = await rt.executeToolCalls(
      [
        call('t1', "const orders = await tools.list_orders({})\nconst paid = orders.filter((o) => o.status === 'paid')\npaid.length"),
        call('t2', 'paid.map((o) => o.id)'),
      ],
      { session: s },
    )
    expect(out.map((m) => m.is_error)).toEqual([false, false])
    expect(out[0]!.content).toContain('3')
    expect(out[1]!.content).toMatch(/o1[^]*o3[^]*o4/)
    await s.close()
  })

  it('declarations() are what the next turn is checked against: typed bindings, nothing of a stopped turn', async () => {
    const s = rt.session()
    await s.runCode(
      'const page = await tools.fetch_page({})\nfunction priceOf(sku: string) { return page.items.find((i) => i.sku === sku)?.price }',
    )
    const stopped = await s.runCode('const broken = missingRate * 2')
    expect(stopped.error?.kind, stopped.observation).toBe('type')
    const text = s.declarations()
    expect(text).toMatch(/\bpage\b[^]*items[^]*sku: string/)
    expect(text).toMatch(/\bpriceOf\b[^]*sku: string[^]*number \| undefined/)
    expect(text).not.toMatch(/\bbroken\b/)
    await s.close()
  })

  it('reset() forgets every binding; the same session then starts over, a name may take another type', async () => {
    const s = rt.session()
    await s.runCode('const cache = new Map<string, number>([["a", 1]])\n;(globalThis as any).marker = 1')
    await s.reset()
    const gone = await s.runCode('return cache.size')
    expect(gone.error?.message, gone.observation).toMatch(/Cannot find name 'cache'/)
    expect((await s.runCode('return typeof (globalThis as any).marker')).value).toBe('undefined')
    expect((await s.runCode("const cache = 'a string now'\ncache.length")).value).toBe(12)
    expect(s.declarations()).not.toMatch(/Map</)
    await s.close()
  })

  it('a closed session keeps nothing: a run of its handle is refused or starts fresh, never with the old state', async () => {
    const s = rt.session()
    await s.runCode('const secretPlan = 1')
    await s.close()
    const outcome = await s.runCode('return secretPlan').then(
      (r) => r.observation,
      (e: unknown) => String(e),
    )
    expect(outcome).toMatch(/closed|Cannot find name 'secretPlan'/i)
  })
})

/**
 * Sessions, from the user's side: the bindings of one run are the globals of the next, in one live realm
 * (real isolate, real type check). Every declaration kind, redeclaration, a throw mid-run, two sessions
 * with the same names at once, reset, close, and native run_code calls in a session.
 */
import { describe, expect, it } from 'vitest'
import { crmTools, runtimeWith } from './core-support.js'

describe('a session keeps its bindings between runs', () => {
  it('carries every declaration kind (const, let, var, function, class, enum, destructuring) as live values', async () => {
    const { tools } = crmTools()
    const rt = await runtimeWith({ tools })
    const s = rt.session()
    const first = await s.runCode(`
const ids = await tools.list_customers({})
let seen = 0
var label = 'crm'
function money(n: number) { return '$' + n.toFixed(2) }
class Ledger {
  entries = new Map<string, number>()
  add(id: string, n: number) { this.entries.set(id, (this.entries.get(id) ?? 0) + n); return this }
  total() { let t = 0; for (const v of this.entries.values()) t += v; return t }
}
enum Tier { Free = 'free', Pro = 'pro' }
const ledger = new Ledger()
const [firstId, ...restIds] = ids
const { length: count } = ids
let counter = (() => { let n = 0; return () => ++n })()
count`)
    expect(first).toMatchObject({ ok: true, value: 3 })
    const second = await s.runCode(`
for (const id of ids) {
  const c = await tools.get_customer({ id })
  if (c.plan === Tier.Pro) ledger.add(id, c.mrr)
  seen++
}
counter(); counter()
return { seen, label, firstId, restIds, total: money(ledger.total()), isLedger: ledger instanceof Ledger, n: counter() }`)
    expect(second.error).toBeNull()
    expect(second.value).toEqual({ seen: 3, label: 'crm', firstId: 'c1', restIds: ['c2', 'c3'], total: '$2000.00', isLedger: true, n: 3 })
    // What the next run is checked against: typed declarations of every binding.
    const d = s.declarations()
    for (const name of ['ids', 'seen', 'label', 'money', 'Ledger', 'Tier', 'ledger', 'firstId', 'restIds', 'count', 'counter'])
      expect(d).toContain(name)
    const typo = await s.runCode('return ledger.totl()')
    expect(typo.ok).toBe(false)
    expect(typo.error?.kind).toBe('type')
  })

  it('lets a later run declare a name again, with another type', async () => {
    const rt = await runtimeWith({ tools: crmTools().tools })
    const s = rt.session()
    await s.runCode('const result = await tools.list_customers({})\nresult.length')
    const again = await s.runCode('const result = { pro: 2, free: 1 }\nresult.pro + result.free')
    expect(again).toMatchObject({ ok: true, value: 3 })
    const after = await s.runCode('return Object.keys(result)')
    expect(after.value).toEqual(['pro', 'free'])
    expect(s.declarations()).toMatch(/result: \{ pro: number; free: number; \}/)
  })

  it('keeps what a run assigned before it threw', async () => {
    const { tools } = crmTools()
    const rt = await runtimeWith({ tools })
    const s = rt.session()
    await s.runCode('const done: string[] = []\nlet failures = 0')
    const thrown = await s.runCode(`
for (const id of ['c1', 'c2', 'nope', 'c3']) {
  const c = await tools.get_customer({ id })
  done.push(c.name)
}`)
    expect(thrown.ok).toBe(false)
    expect(thrown.error?.message).toMatch(/no customer nope/)
    const next = await s.runCode('failures++\nreturn { done, failures }')
    expect(next.value).toEqual({ done: ['Acme', 'Globex'], failures: 1 })
  })

  it('keeps two sessions with the same names apart, run at the same time', async () => {
    const rt = await runtimeWith({ tools: crmTools().tools })
    const a = rt.session()
    const b = rt.session()
    await Promise.all([a.runCode("const owner = 'alice'\nlet n = 1"), b.runCode("const owner = 'bob'\nlet n = 100")])
    const [ra, rb] = await Promise.all([
      a.runCode('for (let i = 0; i < 50; i++) { n++; await tools.list_customers({}) }\nreturn [owner, n]'),
      b.runCode('for (let i = 0; i < 50; i++) { n--; await tools.list_customers({}) }\nreturn [owner, n]'),
    ])
    expect(ra.value).toEqual(['alice', 51])
    expect(rb.value).toEqual(['bob', 50])
    // A stateless run sees neither.
    expect((await rt.runCode("return 'owner' in globalThis")).value).toBe(false)
  })

  it('runs the runs of one session in order, even when they are started at once', async () => {
    const rt = await runtimeWith({ typecheck: 'off' })
    const s = rt.session()
    await s.runCode('const log: number[] = []')
    const runs = await Promise.all([1, 2, 3, 4].map((i) => s.runCode(`log.push(${i})\nreturn log.length`)))
    expect(runs.map((r) => r.value)).toEqual([1, 2, 3, 4])
  })

  it('forgets everything on reset, and a closed session starts afresh', async () => {
    const rt = await runtimeWith()
    const s = rt.session()
    await s.runCode('const secret = 42')
    await s.reset()
    expect(s.declarations()).toBe('')
    const afterReset = await rt.runCode("return 'secret' in globalThis", { session: s })
    expect(afterReset.value).toBe(false)
    expect((await s.runCode('return secret')).error?.kind).toBe('type')
    await s.runCode('const again = 1')
    await s.close()
    const reopened = rt.session({ id: s.id })
    expect((await reopened.runCode("return 'again' in globalThis")).value).toBe(false)
  })

  it('runs native run_code calls in the session given to executeToolCalls', async () => {
    const rt = await runtimeWith({ tools: crmTools().tools })
    const s = rt.session()
    const call = (id: string, code: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'run_code', arguments: JSON.stringify({ code }) },
    })
    await rt.executeToolCalls([call('call_1', "const c = await tools.get_customer({ id: 'c3' })\nc.name")], { session: s })
    const [answer] = await rt.executeToolCalls([call('call_2', 'return c.mrr * 12')], { session: s.id })
    expect(answer?.content).toContain('9600')
    // Without the session, the same call is stateless.
    const [stateless] = await rt.executeToolCalls([call('call_3', "return 'c' in globalThis")])
    expect(stateless?.content).toContain('false')
  })

  it('calls a tool function kept from an earlier run through the current run (logged, counted, once)', async () => {
    const { tools, executions } = crmTools()
    const rt = await runtimeWith({ tools })
    const s = rt.session()
    await s.runCode('const list = tools.list_customers\nconst { get_customer } = tools\nconst viaName = () => tools.list_customers({})')
    const kept = await s.runCode(
      "const a = await list({})\nconst c = await get_customer({ id: 'c2' })\nreturn [a.length, c.name, (await viaName()).length]",
    )
    expect(kept.value).toEqual([3, 'Globex', 3])
    expect(kept.calls.map((c) => c.name)).toEqual(['list_customers', 'get_customer', 'list_customers'])
    expect(executions).toEqual(['list_customers', 'get_customer:c2', 'list_customers'])
  })

  it('is per caller and id: another caller naming the same id has a separate session and learns nothing', async () => {
    const rt = await runtimeWith()
    const alice = rt.session({ id: 'conv-1', caller: 'alice' })
    await rt.runCode("const card = 'alice-card-4242'", { session: alice })
    const mallory = await rt.runCode('return card', { session: 'conv-1', caller: 'mallory' })
    expect(mallory.error?.kind).toBe('type')
    expect(await rt.runCode("return 'card' in globalThis", { session: 'conv-1', caller: 'mallory' })).toMatchObject({ value: false })
    expect(await rt.runCode("return 'card' in globalThis", { session: 'conv-1' })).toMatchObject({ value: false })
    // A handle is its caller's: using it as another caller is API misuse.
    await expect(rt.runCode('return card', { session: alice, caller: 'mallory' })).rejects.toThrow(TypeError)
    expect((await rt.runCode('return card', { session: 'conv-1', caller: 'alice' })).value).toBe('alice-card-4242')
    expect((await alice.runCode('return card')).value).toBe('alice-card-4242')
  })

  it('refuses a session that is not a session', async () => {
    const rt = await runtimeWith()
    expect(() => rt.session({ id: '' })).toThrow(TypeError)
    await expect(rt.runCode('1', { session: '' })).rejects.toThrow(TypeError)
  })
})

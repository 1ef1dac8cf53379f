/**
 * A long-lived runtime as an agent harness holds it (issue 17, seen from the user's side): one runtime, a
 * model's program every so often, the cores idle while the model thinks. A realistic program — several
 * calls, a `Promise.all`, a failure it catches, console output — gives the same full answer whether it comes
 * back to back or after gaps that outlast the pool's one-second burst keep; the same child process serves
 * every run (no respawn across the gaps); and between runs the runtime holds nothing that keeps the host's
 * event loop alive (nothing of it is left running while the model thinks). With the check off and on.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import type { ToolDefinition } from '../../vocabulary/types.js'
import { isolateChildPids } from '../sandbox/fixtures/isolate-host.js'

const USERS = [1, 2, 3, 4, 5].map((id) => ({ id, name: `user${id}` }))

const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})

const tools: ToolDefinition[] = [
  { name: 'list_users', description: 'Lists the users.', parameters: object({}), execute: async () => USERS },
  {
    name: 'get_user',
    description: 'One user by id, with their order count.',
    parameters: object({ id: { type: 'number' } }),
    execute: async (args) => {
      const { id } = args as { id: number }
      const user = USERS.find((u) => u.id === id)
      if (!user) throw Object.assign(new Error(`no user ${id}`), { code: 'ENOENT' })
      return { ...user, orders: id * 3 }
    },
  },
  {
    name: 'summarize',
    description: 'Counts the words of a text.',
    parameters: object({ text: { type: 'string' } }),
    execute: async (args) => ({ words: (args as { text: string }).text.split(' ').length }),
  },
]

/** What a model writes: a new text each turn (the factor), the same shape. */
const program = (turn: number) => `// turn ${turn}
const users = await tools.list_users({})
console.log(\`found \${users.length} users\`)
const details = await Promise.all(users.map((u) => tools.get_user({ id: u.id })))
let total = 0
for (const d of details) total += d.orders * ${turn}
try { await tools.get_user({ id: 999 }) } catch (e) { console.warn('missing', (e as { code?: string }).code) }
const s = await tools.summarize({ text: details.map((d) => d.name).join(' ') })
return { total, words: s.words, top: details.sort((a, b) => b.orders - a.orders)[0]!.name }
`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What keeps this process's event loop alive, by kind, timers apart (the test runner's own come and go). */
function holding(): { handles: string[]; timers: number } {
  const all = process.getActiveResourcesInfo()
  return { handles: all.filter((kind) => kind !== 'Timeout').sort(), timers: all.length - all.filter((k) => k !== 'Timeout').length }
}

const runtimes: Runtime[] = []
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close()))
})

describe.each(['off', 'error'] as const)('a long-lived runtime, spaced runs, typecheck %s', (typecheck) => {
  it('answers every run in full, from the same child, and holds nothing open between runs', { timeout: 60_000 }, async () => {
    const before = holding()
    let runnerTimers = before.timers
    for (let i = 0; i < 5; i++) {
      await sleep(10)
      runnerTimers = Math.max(runnerTimers, holding().timers)
    }
    const others = isolateChildPids()
    const rt = await createRuntime({ tools, typecheck })
    runtimes.push(rt)
    let children: number[] | undefined
    let turn = 0
    // Back to back, then gaps shorter and longer than the pool's burst keep (1 s) and its idle collection.
    for (const gap of [0, 0, 250, 1200, 0, 1200]) {
      await sleep(gap)
      turn++
      const r = await rt.runCode(program(turn))
      expect(r.ok, r.observation).toBe(true)
      expect(r.value).toEqual({ total: 45 * turn, words: 5, top: 'user5' })
      expect(r.logs).toEqual([
        { level: 'log', text: 'found 5 users' },
        { level: 'warn', text: 'missing ENOENT' },
      ])
      // In the order the program issued them, the caught failure included.
      expect(r.calls.map((c) => [c.name, c.ok])).toEqual([
        ['list_users', true],
        ...USERS.map(() => ['get_user', true]),
        ['get_user', false],
        ['summarize', true],
      ])
      expect(r.calls.slice(1, 6).map((c) => (c.args as { id: number }).id)).toEqual([1, 2, 3, 4, 5])
      // The model is told of the failed call even though the program caught it.
      expect(r.observation).toMatch(/ENOENT/)
      const now = isolateChildPids().filter((pid) => !others.includes(pid))
      expect(now.length).toBe(1)
      children ??= now
      expect(now, `run ${turn} after a ${gap} ms gap`).toEqual(children)
      // What keeps the event loop alive comes back to what did before the runtime existed (with the check
      // on, the checker's warm-up check after the first run holds its thread's port for a moment).
      let after = holding()
      for (let waited = 0; waited < 5000 && (after.handles.join() !== before.handles.join() || after.timers > runnerTimers); waited += 50) {
        await sleep(50)
        after = holding()
      }
      expect(after.handles, `after run ${turn}`).toEqual(before.handles)
      expect(after.timers, `after run ${turn}`).toBeLessThanOrEqual(runnerTimers)
    }
    await rt.close()
    expect(isolateChildPids().filter((pid) => !others.includes(pid))).toEqual([])
  })
})

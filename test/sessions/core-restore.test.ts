/**
 * Restore by replay, from the user's side: a realm lost to a memory kill, to idle expiry, to the cap on
 * live realms, or to a host restart comes back with the same state, and no tool runs a second time (a
 * counting tool proves it). Real isolate, real child processes, a real JSONL log on disk.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox } from '../../sandbox/types.js'
import { parseJSONL } from '../../runtime/event-log.js'
import { replayObservations } from '../../runtime/replay.js'
import { createRuntime } from '../../runtime/create-runtime.js'
import { sessionKey } from '../../runtime/session-history.js'
import { crmTools, runtimeWith } from './core-support.js'

/** The sandbox's name for a session's realm (what `endSession` takes). */
const realmOf = (s: { id: string; caller: string | undefined }) => sessionKey(s.caller, s.id)

const TURNS = [
  'const ids = await tools.list_customers({})\nconst byId = new Map<string, { name: string; mrr: number }>()\nids.length',
  'for (const id of ids) { const c = await tools.get_customer({ id }); byId.set(id, { name: c.name, mrr: c.mrr }) }\nbyId.size',
  'const picks = ids.map(() => Math.random())\nconst stamp = Date.now()\nconst when = new Date().getTime()\npicks.length',
  'let total = 0\nfor (const v of byId.values()) total += v.mrr\ntotal',
]
const STATE = 'return { names: [...byId.values()].map((v) => v.name), total, picks, stamp, when }'

/** The isolate sandbox, with a count of the realms the runtime freed. */
function countingSandbox(): Sandbox & { ended: string[] } {
  const inner = createIsolateSandbox()
  const ended: string[] = []
  return {
    name: inner.name,
    // Declared as having effects of its own, so a restore says which runs ran again.
    capabilities: { ...inner.capabilities, effectsOnlyThroughHost: false },
    ended,
    start: () => inner.start(),
    run: (req, host, signal) => inner.run(req, host, signal),
    close: () => inner.close(),
    endSession: async (id) => {
      ended.push(id)
      await inner.endSession(id)
    },
  }
}

describe('a session whose realm is gone is restored by replay', () => {
  it('after a memory kill: same state, no tool executed again, and the killing run is not replayed', async () => {
    const { tools, executions } = crmTools()
    const rt = await runtimeWith({ tools, sessions: { memoryMb: 32 } })
    const s = rt.session()
    for (const code of TURNS) expect((await s.runCode(code)).error).toBeNull()
    const before = await s.runCode(STATE)
    const toolRuns = executions.length
    const oom = await s.runCode('const hog: string[] = []\nwhile (true) hog.push("x".repeat(1 << 20) + hog.length)')
    expect(oom.error?.kind).toBe('memory')
    // The realm's limit governs, whatever the run asked: the hint names it.
    expect(oom.error?.message).toMatch(/32 MB.*raise it with --realm-memory \(sessions\.memoryMb\)$/)
    expect(oom.error?.message).not.toContain('limits.memoryMb')
    const after = await s.runCode(STATE)
    expect(after.value).toEqual(before.value)
    expect(executions.length).toBe(toolRuns)
    expect(after.observation).toMatch(
      /Note: the session was restored: .* 5 earlier runs were replayed .*no tool ran again.*run 6 ran out of memory and was not replayed/,
    )
    // The next run is in the restored realm: no second restore.
    const next = await s.runCode('total += 1\nreturn total')
    expect(next.value).toBe(2001)
    expect(next.observation).not.toContain('restored')
  })

  it('after idle expiry, and past the cap of live realms (the least recently used idle one is freed)', async () => {
    const { tools, executions } = crmTools()
    const sandbox = countingSandbox()
    const rt = await runtimeWith({ tools, sandbox, sessions: { max: 2, idleMs: 60_000 } })
    const [a, b, c] = [rt.session(), rt.session(), rt.session()]
    await a.runCode("const who = 'a'\nconst n = (await tools.list_customers({})).length")
    await b.runCode("const who = 'b'")
    expect(sandbox.ended).toEqual([])
    await c.runCode("const who = 'c'")
    expect(sandbox.ended).toEqual([realmOf(a)])
    const back = await a.runCode('return [who, n]')
    expect(back.value).toEqual(['a', 3])
    expect(back.observation).toContain('the session was restored')
    // a came back, so b (now the least recently used) made room.
    expect(sandbox.ended).toEqual([realmOf(a), realmOf(b)])
    expect(executions).toEqual(['list_customers'])

    const short = await runtimeWith({ tools, sandbox: countingSandbox(), sessions: { idleMs: 20 } })
    const d = short.session()
    await d.runCode("const kept = 'yes'")
    await vi.waitFor(() => expect((short.sandbox as Sandbox & { ended: string[] }).ended).toEqual([realmOf(d)]), { timeout: 20_000 })
    const woke = await d.runCode('return kept')
    expect(woke.value).toBe('yes')
    expect(woke.observation).toContain('the session was restored')
  })

  it('after a host restart, from the JSONL log the earlier runtime wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codeact-sessions-'))
    const logFile = join(dir, 'events.jsonl')
    const first = crmTools()
    const rt1 = await createRuntime({ tools: first.tools, logFile })
    const s = rt1.session({ id: 'conv-42' })
    for (const code of TURNS) expect((await s.runCode(code)).error).toBeNull()
    const before = await s.runCode(STATE)
    const observationsBefore = replayObservations(parseJSONL(readFileSync(logFile, 'utf8')))
    await rt1.close()
    // `codeact replay`'s rebuild of the first runtime's log is untouched by sessions.
    expect(observationsBefore.map((o) => o.content)).toEqual([...TURNS.map(() => expect.any(String)), before.observation])

    const second = crmTools()
    const rt2 = await runtimeWith({ tools: second.tools, logFile })
    const resumed = rt2.session({ id: 'conv-42' })
    // The declarations were rebuilt from the log: the next run type-checks against them.
    expect(resumed.declarations()).toBe('')
    const after = await resumed.runCode(STATE)
    expect(after.error).toBeNull()
    expect(after.value).toEqual(before.value)
    expect(resumed.declarations()).toContain('byId')
    expect(second.executions).toEqual([])
    expect(after.observation).toContain('the session was restored')

    // The second runtime carried the history into its own log: a third one restores from it too.
    await rt2.close()
    const third = crmTools()
    const rt3 = await runtimeWith({ tools: third.tools, logFile })
    const again = await rt3.session({ id: 'conv-42' }).runCode('return total')
    expect(again.value).toBe(2000)
    expect(third.executions).toEqual([])
  })

  it('replays the entropy: Math.random and Date answer what they answered the first time', async () => {
    const rt = await runtimeWith({ sessions: { memoryMb: 32 } })
    const s = rt.session()
    await s.runCode('const r = [Math.random(), Math.random()]\nconst t = Date.now()\nconst d = new Date()\nconst str = Date()')
    const before = await s.runCode('return { r, t, d: d.getTime(), str, isDate: d instanceof Date }')
    await rt.sandbox.endSession?.(realmOf(s))
    const after = await s.runCode('return { r, t, d: d.getTime(), str, isDate: d instanceof Date }')
    expect(after.value).toEqual(before.value)
    expect(after.observation).toContain('restored')
  })

  it('rebuilds a run that read the clock 30,000 times, time for time', async () => {
    const rt = await runtimeWith()
    const s = rt.session()
    await s.runCode(
      'const stamps: number[] = []\nfor (let i = 0; i < 30_000; i++) stamps.push(Date.now())\nconst last = stamps[stamps.length - 1]',
    )
    const before = await s.runCode('return [stamps.length, last, stamps.join().length, new Set(stamps).size]')
    await rt.sandbox.endSession?.(realmOf(s))
    const after = await s.runCode('return [stamps.length, last, stamps.join().length, new Set(stamps).size]')
    expect(after.value).toEqual(before.value)
    expect(after.observation).toContain('the session was restored')
    expect(after.observation).not.toContain('may differ')
  })
})

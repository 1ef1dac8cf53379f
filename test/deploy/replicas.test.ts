/**
 * Three `codeact mcp --http --store postgres://…` replicas behind HAProxy (round-robin per request, so
 * consecutive requests of one session reach different replicas), driven by the official MCP client:
 * every turn sees its session's state, every tool call runs once whichever replica served it, a replica
 * killed with SIGKILL mid-turn or between turns costs at most that turn and leaves no process behind, and
 * two replicas racing for one session's turn never run it twice.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type PostgresCluster, postgresSkip, startPostgres } from '../../bench/postgres.js'
import { alive, exits, type Fleet, haproxySkip, startFleet } from '../../bench/fleet.js'
import { type BalancedClient, connect, keysUpTo, pool, turnCode } from '../../bench/fleet-client.js'

/** 200 as the issue asks; CODEACT_FLEET_SESSIONS runs fewer on a machine too busy for 1,000 turns in time. */
const SESSIONS = Number(process.env['CODEACT_FLEET_SESSIONS'] ?? 200)
const TURNS = 5
/**
 * Clients at once: two per replica. The fleet is CPU-bound (a turn that reaches a replica behind on its
 * session starts the session's process there and replays it: bench/replicas.ts), so more clients only
 * queue turns — 15–25 at once under load ran past the 5 s prepare budget.
 */
const AT_ONCE = 6

/** Waits until none of `pids` is alive (a killed replica's isolate children notice their parent is gone). */
async function gone(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 200 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50))
  return pids.filter(alive)
}

describe.skipIf(postgresSkip || haproxySkip)('three replicas behind HAProxy, sessions in PostgreSQL', () => {
  let pg: PostgresCluster
  let fleet: Fleet
  beforeAll(async () => {
    pg = await startPostgres('deploy32')
    fleet = await startFleet('deploy32', 3, pg.url, ['--max-sessions', '400', '--max-processes', '16'])
    // Warm every replica (its compiler, a spare isolate process, its store connections) before any clock.
    await pool([-1, -2, -3], 3, async (s) => {
      const client = await connect(fleet.url, fleet.token)
      for (let t = 1; t <= 3; t++) await client.run(turnCode(s, t))
      await client.close()
    })
  }, 120_000)
  afterEach(() => {
    expect(exits, 'a replica exited on its own').toEqual([])
  })
  afterAll(async () => {
    await fleet?.close()
    await pg?.remove()
  })

  it(`${SESSIONS} sessions of ${TURNS} turns: every turn's state right, every tool call run once`, async () => {
    const ledgerBefore = fleet.ledger().length
    const servedBy = new Set<string>()
    await pool([...Array(SESSIONS).keys()], AT_ONCE, async (s) => {
      const client = await connect(fleet.url, fleet.token)
      try {
        for (let t = 1; t <= TURNS; t++) {
          const out = await client.run(turnCode(s, t))
          expect(out, out.text).toMatchObject({ ok: true, value: keysUpTo(s, t) })
        }
        expect(new Set(client.servedBy).size, `session ${s} was served by one replica only`).toBeGreaterThan(1)
        for (const r of client.servedBy) servedBy.add(r)
      } finally {
        await client.close()
      }
    })
    expect([...servedBy].sort()).toEqual(['r0', 'r1', 'r2'])
    const calls = fleet.ledger().slice(ledgerBefore)
    expect(calls).toHaveLength(SESSIONS * TURNS)
    expect(new Set(calls).size).toBe(SESSIONS * TURNS)
  }, 240_000)

  it('kill -9 of a replica, 20 times, mid-turn and between turns: sessions go on elsewhere, no process left', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => connect(fleet.url, fleet.token)))
    const done = clients.map(() => [] as string[]) // the keys each session's state must hold
    let stop = false
    const drive = async (client: BalancedClient, s: number) => {
      for (let attempt = 1; !stop; attempt++) {
        const key = `kill-${s}:${attempt}`
        const declare = done[s]!.length === 0 ? 'var keys = []' : ''
        const code = `${declare}\nkeys.push(await tools.count({ key: '${key}', ms: ${attempt % 3 === 0 ? 150 : 0} })); keys`
        const out = await client.run(code).catch((e: Error) => ({ ok: false, value: undefined, text: e.message }))
        if (!out.ok) continue // the turn was lost with its replica: the next one goes on from the state before it
        done[s]!.push(key)
        expect(out.value, out.text).toEqual(done[s])
      }
    }
    const running = clients.map((c, s) => drive(c, s))
    const leftovers: number[] = []
    for (let k = 0; k < 20; k++) {
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 400))
      const victim = Math.floor(Math.random() * 3)
      const children = await fleet.kill9(victim)
      leftovers.push(...(await gone(children)))
      await fleet.restart(victim)
    }
    stop = true
    await Promise.all(running)
    expect(leftovers, 'processes of killed replicas still alive').toEqual([])
    expect(done.flat().length, 'turns that succeeded around the kills').toBeGreaterThan(20)
    // Every turn a client saw succeed ran its tool call exactly once.
    const ledger = fleet.ledger()
    for (const key of done.flat())
      expect(
        ledger.filter((l) => l === key),
        key,
      ).toHaveLength(1)
    await Promise.all(clients.map((c) => c.close()))
  }, 240_000)

  it('two replicas racing for one session turn: one runs it, the other waits or answers busy', async () => {
    const client = await connect(fleet.url, fleet.token)
    await client.run(`let n = 0; n`)
    const before = fleet.ledger().length
    // Two calls at once on one session: HAProxy sends them to two replicas.
    const [a, b] = await Promise.all([
      client.run(`n++; await tools.count({ key: 'race-a', ms: 300 }); n`),
      client.run(`n++; await tools.count({ key: 'race-b', ms: 300 }); n`),
    ])
    const ok = [a, b].filter((r) => r.ok)
    for (const r of [a, b]) if (!r.ok) expect(r.text).toMatch(/EBUSY|busy/i)
    // Turns of one session never overlap: the answers are 1 then 2, never 1 and 1.
    expect(ok.map((r) => r.value).sort()).toEqual(ok.length === 2 ? [1, 2] : [1])
    expect(fleet.ledger().slice(before), JSON.stringify([a, b])).toHaveLength(ok.length)
    expect(new Set(client.servedBy.slice(-2)).size).toBe(2)
    await client.close()
  }, 60_000)
})

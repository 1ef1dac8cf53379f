/**
 * Retention of the PostgreSQL store, on a real database: old events and idle sessions are swept (with their
 * runs and MCP initialize) while live ones stay; three replicas sweeping at once neither deadlock nor take
 * a session whose turn is running; one MCP session's events are capped; a purged `Last-Event-ID` is an
 * unknown event (the SDK answers 400), never a crash; a session closed by its MCP client (DELETE) is gone for
 * every replica; the `--store-*` flags build the store's options.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { storeFromFlags } from '../../cli/store-flags.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { sessionKey } from '../../runtime/session-history.js'
import { PostgresStore } from '../../runtime/store/postgres/postgres-store.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { type PostgresCluster, postgresSkip, startPostgres } from '../../bench/postgres.js'

const MESSAGE = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'x' } }

describe.skipIf(postgresSkip)('the PostgreSQL store keeps nothing forever', () => {
  let cluster: PostgresCluster
  let db: pg.Client
  const stores: PostgresStore[] = []
  const runtimes: Runtime[] = []
  const store = (o: Partial<ConstructorParameters<typeof PostgresStore>[0]> = {}) => {
    const s = new PostgresStore({ url: cluster.url, sweepMs: 3_600_000, ...o })
    stores.push(s)
    return s
  }
  /** Makes rows look `seconds` old, as if that time had passed. */
  const age = (table: string, column: string, where: string, seconds: number) =>
    db.query(`update ${table} set ${column} = now() - make_interval(secs => ${seconds}) where ${where}`)
  const count = async (sql: string, values: unknown[] = []) => Number((await db.query(sql, values)).rows[0].n)

  beforeAll(async () => {
    cluster = await startPostgres('retain32')
    db = new pg.Client({ connectionString: cluster.url })
    await db.connect()
  })
  afterAll(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()))
    await Promise.all(stores.splice(0).map((s) => s.close()))
    await db?.end()
    await cluster?.remove()
  })

  it('a sweep deletes events past the event TTL and sessions idle past the session TTL, with their runs; live ones stay', async () => {
    const a = store({ eventTtlMs: 60_000, sessionTtlMs: 600_000 })
    const rt = await createRuntime({ typecheck: 'off', store: a })
    runtimes.push(rt)
    await rt.session({ id: 'old', caller: 'alice' }).runCode('const x = 1')
    await rt.session({ id: 'new', caller: 'alice' }).runCode('const y = 2')
    await a.mcp.saveSession('mcp-old', { init: 1 })
    await a.mcp.saveSession('mcp-new', { init: 2 })
    const old = await a.mcp.forSession('mcp-old').storeEvent('s1', MESSAGE)
    const fresh = await a.mcp.forSession('mcp-new').storeEvent('s2', MESSAGE)
    await age('codeact_sessions', 'updated_at', `key = '${sessionKey('alice', 'old')}'`, 601)
    await age('codeact_mcp_sessions', 'used_at', `id = 'mcp-old'`, 601)
    await age('codeact_mcp_events', 'created_at', `id = ${old}`, 61)

    const swept = await a.sweep()
    expect(swept).toEqual({ ok: true, value: { events: 1, sessions: 1, mcpSessions: 1 } })
    expect(await count('select count(*) n from codeact_runs where key = $1', [sessionKey('alice', 'old')])).toBe(0)
    expect(await count('select count(*) n from codeact_runs where key = $1', [sessionKey('alice', 'new')])).toBe(1)
    expect(await count('select count(*) n from codeact_mcp_events where id = $1', [fresh])).toBe(1)
    expect(await a.mcp.findSession('mcp-old')).toBeUndefined()
    expect(await a.mcp.findSession('mcp-new')).toEqual({ init: 2 })
    // The swept session begins afresh, on this replica too; the kept one goes on.
    expect((await rt.session({ id: 'old', caller: 'alice' }).runCode('typeof x')).value).toBe('undefined')
    expect((await rt.session({ id: 'new', caller: 'alice' }).runCode('y')).value).toBe(2)
  })

  it('three replicas sweeping at once split the work and never take a session whose turn is running', async () => {
    await db.query('delete from codeact_sessions')
    const [a, b, c] = [store({ sessionTtlMs: 1_000 }), store({ sessionTtlMs: 1_000 }), store({ sessionTtlMs: 1_000 })]
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    let started!: () => void
    const running = new Promise<void>((r) => {
      started = r
    })
    const wait = defineTool({
      name: 'wait',
      description: 'Waits for the test.',
      parameters: z.object({}),
      output: z.string(),
      execute: async () => {
        started()
        await gate
        return 'done'
      },
    })
    const rt = await createRuntime({ typecheck: 'off', store: a, tools: [wait] })
    runtimes.push(rt)
    await rt.session({ id: 'live', caller: 'bob' }).runCode('const before = 1')
    const turn = rt.session({ id: 'live', caller: 'bob' }).runCode('const after = await tools.wait({})\nreturn [before, after]')
    await running
    // Idle for long by its last turn, but its lease is live; 300 idle sessions around it.
    await db.query(`insert into codeact_sessions (key) select 'idle-' || g from generate_series(1, 300) g`)
    await age('codeact_sessions', 'updated_at', 'true', 3_600)
    const results = await Promise.all([a.sweep(), b.sweep(), c.sweep(), a.sweep(), b.sweep(), c.sweep()])
    const total = results.reduce((n, r) => n + (r.ok ? r.value.sessions : Number.NaN), 0)
    expect(total).toBe(300)
    expect(await count(`select count(*) n from codeact_sessions where key = $1`, [sessionKey('bob', 'live')])).toBe(1)
    release()
    expect((await turn).value).toEqual([1, 'done'])
    expect(await count('select count(*) n from codeact_runs where key = $1', [sessionKey('bob', 'live')])).toBe(2)
  })

  it("one MCP session's events are capped, the oldest dropped first; other sessions keep theirs", async () => {
    const a = store({ maxEventsPerSession: 5 })
    const chatty = a.mcp.forSession('chatty')
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push(await chatty.storeEvent('s', { ...MESSAGE, params: { level: 'info', data: i } }))
    const quiet = await a.mcp.forSession('quiet').storeEvent('s', MESSAGE)
    const kept = (await db.query(`select id from codeact_mcp_events where session_id = 'chatty' order by id`)).rows.map((r) => String(r.id))
    expect(kept).toEqual(ids.slice(-5))
    expect(await count('select count(*) n from codeact_mcp_events where id = $1', [quiet])).toBe(1)
  })

  it('a resumption from a purged Last-Event-ID finds no stream (the SDK answers 400), never a crash', async () => {
    const a = store({ eventTtlMs: 1_000 })
    const s = a.mcp.forSession('resume')
    const first = await s.storeEvent('stream-r', MESSAGE)
    await s.storeEvent('stream-r', MESSAGE)
    await age('codeact_mcp_events', 'created_at', `session_id = 'resume'`, 5)
    await a.sweep()
    expect(await s.getStreamIdForEventId?.(first)).toBeUndefined()
    const sent: string[] = []
    expect(await s.replayEventsAfter(first, { send: async (id) => void sent.push(id) })).toBe('')
    expect(sent).toEqual([])
    // Nor does one session resume another's stream (stream ids such as `_GET_stream` repeat across sessions).
    const other = await a.mcp.forSession('other').storeEvent('_GET_stream', MESSAGE)
    expect(await s.getStreamIdForEventId?.(other)).toBeUndefined()
  })

  it('an MCP session closed by its client is gone for every replica: initialize, events, codeact history', async () => {
    const [a, b] = [store(), store()]
    const rtB = await createRuntime({ typecheck: 'off', store: b })
    runtimes.push(rtB)
    await a.mcp.saveSession('closing', { init: 3 })
    await a.mcp.forSession('closing').storeEvent('s', MESSAGE)
    await rtB.session({ id: 'mcp:closing', caller: 'closing' }).runCode('const kept = 7')
    await a.mcp.forgetSession('closing')
    expect(await b.mcp.findSession('closing')).toBeUndefined()
    expect(await count(`select count(*) n from codeact_mcp_events where session_id = 'closing'`)).toBe(0)
    const loaded = await b.load(sessionKey('closing', 'mcp:closing'))
    expect(loaded).toMatchObject({ ok: true, value: { runs: [] } })
  })

  it('session.close() on one replica deletes the session for every replica; close({ here: true }) keeps it', async () => {
    const [a, b] = [store(), store()]
    const [ra, rb] = [await createRuntime({ typecheck: 'off', store: a }), await createRuntime({ typecheck: 'off', store: b })]
    runtimes.push(ra, rb)
    const s = { id: 'conv-close', caller: 'carol' }
    await ra.session(s).runCode('const kept = 9')
    expect((await rb.session(s).runCode('kept')).value).toBe(9)
    await ra.session(s).close({ here: true })
    expect((await rb.session(s).runCode('kept')).value).toBe(9)
    await ra.session(s).close()
    expect(await count('select count(*) n from codeact_sessions where key = $1', [sessionKey('carol', 'conv-close')])).toBe(0)
    // b held it live a turn ago: it begins afresh all the same.
    expect((await rb.session(s).runCode('typeof kept')).value).toBe('undefined')
  })

  it('the --store-* flags build the store: lease, wait, TTLs, cap; without --store they are a usage error', async () => {
    const url = cluster.url
    const spec = storeFromFlags(
      {
        store: url,
        'store-lease': '20s',
        'store-wait': '5s',
        'store-event-ttl': '2h',
        'store-session-ttl': '48h',
        'store-max-events': '50',
      },
      undefined,
    )
    expect(spec).toEqual({ url, leaseMs: 20_000, waitMs: 5_000, eventTtlMs: 7_200_000, sessionTtlMs: 172_800_000, maxEventsPerSession: 50 })
    const rt = await createRuntime({ typecheck: 'off', ...(spec ? { store: spec } : {}) })
    runtimes.push(rt)
    const applied = rt.store as PostgresStore
    expect([applied.leaseMs, applied.waitMs, applied.retention.eventTtlMs, applied.retention.sessionTtlMs]).toEqual([
      20_000, 5_000, 7_200_000, 172_800_000,
    ])
    expect(storeFromFlags({}, url)).toBe(url)
    expect(() => storeFromFlags({ 'store-lease': '20s' }, undefined)).toThrow(/--store-lease applies to a shared store: add --store/)
    expect(() => storeFromFlags({ store: url, 'store-event-ttl': 'soon' }, undefined)).toThrow(/--store-event-ttl must be a whole number/)
  })
})

/**
 * Two real `codeact mcp --http --store postgres://…` processes sharing one real PostgreSQL, driven over
 * raw HTTP as a load balancer would spread a client's requests: a session started on one replica is
 * served by the other with its state, every tool call executes once (counted in a file both processes
 * append to), a stream's events resume with `Last-Event-ID` on the other replica, and a replica killed
 * with SIGKILL mid-turn leaves that turn recorded as lost and its lease to expire.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessionKey } from '../../runtime/session-history.js'
import { type CliServer, MCP_HEADERS, sseMessages, startHttpCli } from '../mcp/http-helpers.js'
import { type PostgresCluster, postgresSkip, startPostgres } from '../../bench/postgres.js'

const TOKEN = 'store32-replica-token-0123456789'
const VERSION = '2025-11-25'
const TOOLS = join(import.meta.dirname, 'fixtures', 'count-tools.ts')

async function initialize(server: CliServer): Promise<string> {
  const headers = { ...MCP_HEADERS, ...server.headers }
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'lb', version: '1' } },
  }
  const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) })
  await res.text()
  const id = res.headers.get('mcp-session-id')!
  const ack = { jsonrpc: '2.0', method: 'notifications/initialized' }
  await (
    await fetch(server.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': VERSION },
      body: JSON.stringify(ack),
    })
  ).text()
  return id
}

/** One run_code call on `server` for session `id`: the SSE text and the tool result. */
async function runCode(server: CliServer, id: string, code: string, rpcId = 2) {
  const headers = { ...MCP_HEADERS, ...server.headers, 'mcp-session-id': id, 'mcp-protocol-version': VERSION }
  const body = { jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: 'run_code', arguments: { code } } }
  const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await res.text()
  const answer = sseMessages(text).find((m) => m['id'] === rpcId) as
    | { result: { structuredContent: { ok: boolean; value?: unknown; error: { code?: string } | null }; content: { text: string }[] } }
    | undefined
  return { status: res.status, text, result: answer?.result }
}

function childPids(pid: number): number[] {
  const r = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
  return r.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return !/^Z/.test(spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim())
  } catch {
    return false
  }
}

describe.skipIf(postgresSkip)('codeact mcp --http replicas sharing a PostgreSQL store', () => {
  let cluster: PostgresCluster
  let countFile: string
  const servers: CliServer[] = []
  const replica = async () => {
    const env = { ...process.env, COUNT_FILE: countFile, CODEACT_STORE: cluster.url, CODEACT_MCP_TOKEN: TOKEN }
    const s = await startHttpCli(['--tools', TOOLS, '--typecheck', 'off'], env)
    servers.push(s)
    return s
  }
  const executions = () => readFileSync(countFile, 'utf8').split('\n').filter(Boolean)

  beforeAll(async () => {
    cluster = await startPostgres('store32-mcp')
    countFile = join(mkdtempSync(join(tmpdir(), 'codeact-store32-')), 'count')
    writeFileSync(countFile, '')
  })
  afterAll(async () => {
    // The replica killed with SIGKILL has exited already (stop() waits for an exit).
    await Promise.all(servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map((s) => s.stop()))
    await cluster?.remove()
  })

  it('a session begun on one replica goes on on the other, with its state; each tool call runs once', async () => {
    const [a, b] = [await replica(), await replica()]
    const id = await initialize(a)
    const first = await runCode(a, id, 'const x = await tools.bump({ tag: "a" })\nreturn x')
    expect(first.result?.structuredContent.value).toBe(1)
    const second = await runCode(b, id, 'const y = await tools.bump({ tag: "b" })\nreturn [x, y]')
    expect(second.status).toBe(200)
    expect(second.result?.structuredContent.value).toEqual([1, 2])
    const third = await runCode(a, id, 'return [x, y, await tools.bump({ tag: "a2" })]', 3)
    expect(third.result?.structuredContent.value).toEqual([1, 2, 3])
    expect(executions().map((l) => l.split(' ')[0])).toEqual(['a', 'b', 'a2'])
    // An id no replica ever started is still unknown.
    expect((await runCode(b, 'no-such-session', '1')).status).toBe(404)
  })

  it('resumes a stream with Last-Event-ID on the other replica: the stored events, none lost', async () => {
    const [a, b] = [servers[0]!, servers[1]!]
    const id = await initialize(a)
    const done = await runCode(a, id, 'return "resumed"', 7)
    const priming = /^id: (\d+)$/m.exec(done.text)?.[1]
    expect(priming).toBeDefined()
    const res = await fetch(b.url, {
      method: 'GET',
      headers: {
        ...b.headers,
        accept: 'text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': VERSION,
        'last-event-id': priming!,
      },
    })
    expect(res.status).toBe(200)
    // The replay stream stays open for later messages: read until the answer arrives, then hang up.
    const reader = res.body!.getReader()
    let text = ''
    while (!sseMessages(text).some((m) => m['id'] === 7)) {
      const { value, done: end } = await reader.read()
      if (end) break
      text += Buffer.from(value).toString()
    }
    await reader.cancel()
    const replayed = sseMessages(text).filter((m) => m['id'] === 7)
    expect(replayed).toHaveLength(1)
    expect((replayed[0] as { result: { structuredContent: { value: unknown } } }).result.structuredContent.value).toBe('resumed')
  })

  it('a session its client closes (DELETE) on one replica is gone for every replica, even one holding it live', async () => {
    const [a, b] = [servers[0]!, servers[1]!]
    const id = await initialize(a)
    expect((await runCode(a, id, 'const kept = 8\nreturn kept')).result?.structuredContent.value).toBe(8)
    // Taken up by b too, so both replicas hold it live.
    expect((await runCode(b, id, 'return kept', 3)).result?.structuredContent.value).toBe(8)
    const closed = await fetch(a.url, {
      method: 'DELETE',
      headers: { ...a.headers, 'mcp-session-id': id, 'mcp-protocol-version': VERSION },
    })
    expect(closed.status).toBe(200)
    const db = new pg.Client({ connectionString: cluster.url })
    await db.connect()
    try {
      const left = await db.query(
        `select (select count(*) from codeact_mcp_sessions where id = $1) + (select count(*) from codeact_mcp_events where session_id = $1)
           + (select count(*) from codeact_sessions where key = $2) as n`,
        [id, sessionKey(id, `mcp:${id}`)],
      )
      expect(Number(left.rows[0].n)).toBe(0)
    } finally {
      await db.end()
    }
    // A third replica never saw it: unknown. b, which still holds it live, starts its history afresh.
    const c = await replica()
    expect((await runCode(c, id, 'return 1', 4)).status).toBe(404)
    expect((await runCode(b, id, 'return typeof kept', 5)).result?.structuredContent.value).toBe('undefined')
    await c.stop()
  })

  it('a replica killed with SIGKILL mid-turn: the turn is recorded as lost, its lease expires, the other replica goes on', async () => {
    const [a, b] = [servers[0]!, servers[1]!]
    const id = await initialize(a)
    expect((await runCode(a, id, 'const kept = 7\nreturn kept')).result?.structuredContent.value).toBe(7)
    const before = executions().length
    void runCode(a, id, 'const gone = 1\nawait tools.hang({})', 4).catch(() => {})
    while (executions().length === before) await new Promise((r) => setTimeout(r, 50))
    const children = childPids(a.child.pid!)
    expect(children.length).toBeGreaterThan(0)
    a.child.kill('SIGKILL')
    // The dead replica's lease lapses (15 s); the next turn then takes it and records the turn as lost.
    const next = await runCode(b, id, 'return [kept, typeof gone]', 5)
    expect(next.result?.structuredContent.value).toEqual([7, 'undefined'])
    expect(next.result?.content[0]?.text).toMatch(/run 2 was lost: the replica running it stopped mid-turn/)
    const db = new pg.Client({ connectionString: cluster.url })
    await db.connect()
    try {
      const key = sessionKey(id, `mcp:${id}`)
      const runs = await db.query<{ run: { lost?: string; code: string } }>('select run from codeact_runs where key = $1 order by seq', [
        key,
      ])
      expect(runs.rows.map((r) => r.run.lost ?? 'ok')).toEqual(['ok', 'was lost: the replica running it stopped mid-turn', 'ok'])
      expect(runs.rows[1]!.run.code).toContain('tools.hang')
      const lease = await db.query<{ lease_until: Date | null; pending: unknown }>(
        'select lease_until, pending from codeact_sessions where key = $1',
        [key],
      )
      expect(lease.rows[0]).toEqual({ lease_until: null, pending: null })
    } finally {
      await db.end()
    }
    expect(executions().filter((l) => l.startsWith('hang'))).toHaveLength(1)
    // No process of the killed replica is left behind (its isolate children end with their host).
    expect(children.filter(alive)).toEqual([])
  })
})

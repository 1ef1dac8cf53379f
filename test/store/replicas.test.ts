/**
 * Sessions in PostgreSQL, from the embedder's side: two runtimes (two replicas) share one real database.
 * Either serves any session with its state, no tool runs twice (a counting tool proves it), one turn of a
 * session runs at a time across replicas, and a database that stops fails the turn as an infrastructure
 * error with nothing half-written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import { PostgresStore } from '../../runtime/store/postgres/postgres-store.js'
import { storeReady } from '../../runtime/store/types.js'
import { sessionKey } from '../../runtime/session-history.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { type PostgresCluster, postgresSkip, startPostgres } from '../../bench/postgres.js'

/** A tool whose every execution is counted (across both replicas: they share this process). */
function counter() {
  const executions: string[] = []
  let gate: Promise<void> | undefined
  const tool = defineTool({
    name: 'bump',
    description: 'Counts an execution; answers its number.',
    parameters: z.object({ tag: z.string() }),
    output: z.number(),
    execute: async ({ tag }) => {
      executions.push(tag)
      await gate
      return executions.length
    },
  })
  return {
    tools: [tool],
    executions,
    /** Holds every execution until the returned function is called. */
    hold(): () => void {
      let open!: () => void
      gate = new Promise<void>((r) => {
        open = r
      })
      return () => {
        gate = undefined
        open()
      }
    },
  }
}

const open: Runtime[] = []
async function replica(options: RuntimeOptions): Promise<Runtime> {
  const rt = await createRuntime({ typecheck: 'off', ...options })
  open.push(rt)
  return rt
}

describe.skipIf(postgresSkip)('any replica serves any session (PostgreSQL store)', () => {
  let pg: PostgresCluster
  beforeAll(async () => {
    pg = await startPostgres('store32-replicas')
  })
  afterAll(async () => {
    await Promise.all(open.splice(0).map((rt) => rt.close()))
    await pg?.remove()
  })

  it('a second runtime restores the session from the store; each tool runs once', async () => {
    const { tools, executions } = counter()
    const a = await replica({ tools, store: pg.url })
    const b = await replica({ tools, store: pg.url })
    const on = (rt: Runtime) => rt.session({ id: 'conv-1', caller: 'alice' })
    expect((await on(a).runCode('const first = await tools.bump({ tag: "a1" })\nfirst')).value).toBe(1)
    const second = await on(b).runCode('const second = await tools.bump({ tag: "b1" })\nreturn [first, second]')
    expect(second.error).toBeNull()
    expect(second.value).toEqual([1, 2])
    expect(second.observation).toMatch(/session was restored/)
    // Back on the first replica: its realm is a turn behind, so it reloads and replays both turns.
    const third = await on(a).runCode('const third = await tools.bump({ tag: "a2" })\nreturn [first, second, third]')
    expect(third.value).toEqual([1, 2, 3])
    expect(executions).toEqual(['a1', 'b1', 'a2'])
    // Another caller naming the same id has a session of its own.
    const other = await b.session({ id: 'conv-1', caller: 'mallory' }).runCode('typeof first')
    expect(other.value).toBe('undefined')
  })

  it('reset on one replica clears the history for every replica', async () => {
    const { tools } = counter()
    const a = await replica({ tools, store: pg.url })
    const b = await replica({ tools, store: pg.url })
    const s = { id: 'conv-reset', caller: 'alice' }
    await a.session(s).runCode('const kept = 42')
    expect((await b.session(s).runCode('kept')).value).toBe(42)
    await b.session(s).reset()
    expect((await a.session(s).runCode('typeof kept')).value).toBe('undefined')
  })

  it('two replicas racing for one turn: one runs, the other waits for it; with a short wait it answers EBUSY', async () => {
    const { tools, executions, hold } = counter()
    const a = await replica({ tools, store: pg.url })
    const patient = await replica({ tools, store: pg.url })
    const hasty = await replica({ tools, store: new PostgresStore({ url: pg.url, waitMs: 300 }) })
    const s = { id: 'conv-race', caller: 'alice' }
    await a.session(s).runCode('const log: string[] = []')
    const release = hold()
    const first = a.session(s).runCode('log.push("a")\nawait tools.bump({ tag: "a" })\nlog.length')
    while (executions.length === 0) await new Promise((r) => setTimeout(r, 20))
    const busy = await hasty.session(s).runCode('log.push("hasty")\nawait tools.bump({ tag: "hasty" })')
    expect(busy.error).toMatchObject({ kind: 'sandbox_unavailable', code: 'EBUSY' })
    expect(busy.observation).toMatch(/^Error \(EBUSY\): the session is running a turn on another replica/)
    const second = patient.session(s).runCode('log.push("b")\nawait tools.bump({ tag: "b" })\nreturn [...log]')
    await new Promise((r) => setTimeout(r, 300))
    expect(executions).toEqual(['a'])
    release()
    expect((await first).value).toBe(1)
    expect((await second).value).toEqual(['a', 'b'])
    expect(executions).toEqual(['a', 'b'])
  })

  it('a store that stops mid-session: the turn fails as EIO, nothing half-written; runs without a session go on', async () => {
    const { tools, executions } = counter()
    const store = new PostgresStore({ url: pg.url, waitMs: 2_000 })
    const a = await replica({ tools, store })
    const s = { id: 'conv-down', caller: 'alice' }
    await a.session(s).runCode('const n = await tools.bump({ tag: "before" })')
    await pg.stop()
    try {
      const down = await a.session(s).runCode('const m = await tools.bump({ tag: "down" })\nm')
      expect(down.error).toMatchObject({ kind: 'sandbox_unavailable', code: 'EIO' })
      expect(down.observation).toMatch(/^Error \(EIO\): the session store is unreachable: /)
      expect(down.observation).toMatch(/not your program/)
      expect(executions).toEqual(['before'])
      expect((await storeReady(store)).ok).toBe(false)
      expect((await a.runCode('return 6 * 7')).value).toBe(42)
    } finally {
      await pg.start()
    }
    expect(await storeReady(store)).toEqual({ ok: true })
    // Another replica sees exactly the turn before the outage.
    const b = await replica({ tools, store: pg.url })
    expect((await b.session(s).runCode('return [n, typeof m]')).value).toEqual([1, 'undefined'])
  })

  it('a stored history that cannot be replayed says why, starts afresh, and can be reset', async () => {
    const a = await replica({ store: pg.url })
    const s = { id: 'conv-broken', caller: 'alice' }
    await a.session(s).runCode('const ok = 1')
    await a.session(s).runCode('const fine = 2')
    const db = new PostgresStore({ url: pg.url })
    try {
      // The first run's program, as stored, no longer compiles (written by an older codeact, say).
      await db.pool.query(`update codeact_runs set run = jsonb_set(run, '{code}', '"const ok = ("') where key = $1 and seq = 0`, [
        sessionKey('alice', 'conv-broken'),
      ])
    } finally {
      await db.close()
    }
    const b = await replica({ store: pg.url })
    const turn = await b.session(s).runCode('return typeof fine')
    expect(turn.observation).toMatch(/the session could not be restored \(run 1 no longer compiles\)/)
    expect(turn.value).toBe('undefined')
    await b.session(s).reset()
    expect((await a.session(s).runCode('return typeof ok')).value).toBe('undefined')
  })

  it('a store down at start: runs without a session work, the readiness check says why', async () => {
    const rt = await replica({ store: 'postgres://codeact@127.0.0.1:1/none' })
    expect((await rt.runCode('return 1 + 1')).value).toBe(2)
    const ready = await storeReady(rt.store)
    expect(ready.ok).toBe(false)
    expect(ready.ok ? '' : ready.reason).toMatch(/^the session store is unreachable: .*ECONNREFUSED/)
    const turn = await rt.session({ id: 'x' }).runCode('1')
    expect(turn.error).toMatchObject({ kind: 'sandbox_unavailable', code: 'EIO' })
  })
})

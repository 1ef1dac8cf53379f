/**
 * Sessions in PostgreSQL, shared by every replica. A session is a row (its history's generation and run
 * count, and its lease: token, holder, deadline, the turn in flight); its runs are rows of `codeact_runs`.
 *
 * A turn takes the row's lease (`begin`): free or past its deadline, the row gets a new fencing token and
 * a deadline `leaseMs` ahead, renewed while the turn runs. A lease found expired with a turn still in
 * flight belonged to a replica that died mid-turn: that turn is recorded as lost (not replayed; the
 * restore note says what was lost) in the same transaction. The turn's run is written, and the lease
 * released, in one transaction that first checks the token is still ours — so a turn is recorded whole
 * or not at all, and never by a replica whose lease was taken over.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { HistoryRun } from '../../session-history.js'
import { type Readiness, type SessionStore, type StoreResult, type StoreVersion, type Turn, unreachable } from '../types.js'
import { migrate } from './schema.js'
import { PostgresEventStore } from './mcp-events.js'
import { type Retention, retention, type Swept, sweep } from './retention.js'

export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:5432/db` */
  url: string
  /** A turn's lease lasts this long past its last renewal (renewed every third of it). Default 15 s. */
  leaseMs?: number
  /** How long a turn waits for another replica's turn of the same session before answering EBUSY. Default 30 s. */
  waitMs?: number
  /** Connections at once (default 10). */
  maxConnections?: number
  /** MCP events (for `Last-Event-ID` resumption) older than this are deleted. Default 1 h. */
  eventTtlMs?: number
  /** A session (its runs, and an MCP session's initialize) whose last turn is older than this is deleted. Default 24 h. */
  sessionTtlMs?: number
  /** Events kept per MCP session; the oldest go first. Default 1000. */
  maxEventsPerSession?: number
  /** How often this replica sweeps (default 60 s, or half the shortest TTL when that is shorter). */
  sweepMs?: number
}

type Row = {
  generation: string
  runs: number
  lease_token: string | null
  lease_holder: string | null
  lease_until: Date | null
  pending: { code: string; holder: string } | null
  expired: boolean
}

const POLL_MS = 50

export class PostgresStore implements SessionStore {
  readonly kind = 'postgres'
  readonly shared = true
  readonly holder = `replica_${randomUUID()}`
  readonly leaseMs: number
  readonly waitMs: number
  readonly retention: Retention
  readonly pool: pg.Pool
  #migrated: Promise<void> | undefined
  #events: PostgresEventStore | undefined
  #sweeper: NodeJS.Timeout | undefined
  #closed = false

  constructor(options: PostgresStoreOptions) {
    this.leaseMs = options.leaseMs ?? 15_000
    this.waitMs = options.waitMs ?? 30_000
    for (const [k, v] of Object.entries({ leaseMs: this.leaseMs, waitMs: this.waitMs }))
      if (!Number.isInteger(v) || v < 1) throw new TypeError(`codeact: the store's ${k} must be a whole number of at least 1, got ${v}`)
    this.retention = retention(options)
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    })
    // An idle connection the server dropped: the next query reconnects (and fails as EIO if it cannot).
    this.pool.on('error', () => {})
  }

  /** The MCP streamable-HTTP event stream, for `Last-Event-ID` resumption on any replica. */
  get mcp(): PostgresEventStore {
    this.#events ??= new PostgresEventStore(this, this.retention.maxEventsPerSession)
    return this.#events
  }

  /** Deletes what outlived its TTL (retention.ts); every replica runs it every `sweepMs`, safely at once. */
  async sweep(): Promise<StoreResult<Swept>> {
    return this.#with((c) => sweep(c, this.retention))
  }

  /** The periodic sweep, from the first use of the database until `close`. */
  #startSweeping(): void {
    if (this.#sweeper || this.#closed) return
    this.#sweeper = setInterval(() => void this.sweep(), this.retention.sweepMs)
    this.#sweeper.unref()
  }

  /** A client with the schema in place (migrated once per process; retried after a failure). */
  async client(): Promise<pg.PoolClient> {
    const client = await this.pool.connect()
    try {
      this.#migrated ??= migrate(client).catch((e: unknown) => {
        this.#migrated = undefined
        throw e
      })
      await this.#migrated
      this.#startSweeping()
      return client
    } catch (e) {
      client.release(true)
      throw e
    }
  }

  async ping(): Promise<Readiness> {
    try {
      const c = await this.client()
      c.release()
      return { ok: true }
    } catch (e) {
      return { ok: false, reason: unreachable(e).error.message }
    }
  }

  async load(key: string): Promise<StoreResult<{ version: StoreVersion; runs: HistoryRun[] }>> {
    return this.#with(async (c) => {
      const s = await c.query<Row>('select generation, runs from codeact_sessions where key = $1', [key])
      const row = s.rows[0]
      if (!row) return { version: { generation: 0, runs: 0 }, runs: [] }
      const r = await c.query<{ run: HistoryRun }>('select run from codeact_runs where key = $1 and generation = $2 order by seq', [
        key,
        row.generation,
      ])
      return { version: { generation: Number(row.generation), runs: row.runs }, runs: r.rows.map((x) => x.run) }
    })
  }

  async begin(key: string, code: string): Promise<StoreResult<Turn>> {
    const until = Date.now() + this.waitMs
    for (;;) {
      const took = await this.#with((c) => this.#take(c, key, code))
      if (!took.ok) return took
      if (took.value) return { ok: true, value: this.#turn(key, took.value.token, took.value.version) }
      if (Date.now() >= until)
        return {
          ok: false,
          error: {
            code: 'EBUSY',
            message: `the session is running a turn on another replica; waited ${this.waitMs} ms (the store's waitMs); send the turn again when it has ended`,
          },
        }
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
  }

  /** One attempt at the lease; undefined while another replica's lease is live. */
  async #take(c: pg.PoolClient, key: string, code: string): Promise<{ token: number; version: StoreVersion } | undefined> {
    await c.query('begin')
    try {
      await c.query('insert into codeact_sessions (key) values ($1) on conflict do nothing', [key])
      const s = await c.query<Row>(
        'select generation, runs, lease_token, lease_holder, lease_until, pending, (lease_until < now()) as expired from codeact_sessions where key = $1 for update',
        [key],
      )
      const row = s.rows[0]
      // Swept between the insert and the lock (idle past sessionTtlMs): try again, it is inserted afresh.
      if (!row) {
        await c.query('rollback')
        return undefined
      }
      // A live lease of another replica: wait. One of ours is a turn that failed to commit (this process
      // runs one turn of a session at a time): taken over at once, its turn recorded as lost.
      if (row.lease_until !== null && !row.expired && row.lease_holder !== this.holder) {
        await c.query('rollback')
        return undefined
      }
      let runs = row.runs
      if (row.pending !== null) {
        await c.query('insert into codeact_runs (key, generation, seq, run) values ($1, $2, $3, $4)', [
          key,
          row.generation,
          runs,
          lostRun(row),
        ])
        runs++
      }
      const t = await c.query<{ token: string }>(
        `update codeact_sessions set runs = $2, lease_token = nextval('codeact_lease_token'), lease_holder = $3,
           lease_until = now() + make_interval(secs => $4), pending = $5, updated_at = now() where key = $1 returning lease_token as token`,
        [key, runs, this.holder, this.leaseMs / 1000, JSON.stringify({ code, holder: this.holder })],
      )
      await c.query('commit')
      return { token: Number(t.rows[0]!.token), version: { generation: Number(row.generation), runs } }
    } catch (e) {
      await c.query('rollback').catch(() => {})
      throw e
    }
  }

  #turn(key: string, token: number, version: StoreVersion): Turn {
    // Renewed while the turn runs: a long turn keeps its lease, a dead replica's lapses within leaseMs.
    const renew = setInterval(
      () => {
        void this.pool
          .query(`update codeact_sessions set lease_until = now() + make_interval(secs => $3) where key = $1 and lease_token = $2`, [
            key,
            token,
            this.leaseMs / 1000,
          ])
          .catch(() => {})
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    )
    renew.unref()
    return {
      version,
      token,
      commit: async (run, restart) => {
        clearInterval(renew)
        return this.#with((c) => this.#commit(c, key, token, run, restart))
      },
      abandon: async () => {
        clearInterval(renew)
        await this.pool
          .query('update codeact_sessions set lease_until = null, pending = null where key = $1 and lease_token = $2', [key, token])
          .catch(() => {})
      },
    }
  }

  async #commit(c: pg.PoolClient, key: string, token: number, run: HistoryRun | undefined, restart: boolean): Promise<StoreVersion> {
    await c.query('begin')
    try {
      const s = await c.query<Row>('select generation, runs, lease_token from codeact_sessions where key = $1 for update', [key])
      const row = s.rows[0]
      if (!row || Number(row.lease_token) !== token) {
        await c.query('rollback')
        throw new LeaseLost()
      }
      let generation = Number(row.generation)
      let runs = row.runs
      if (restart && run) {
        generation++
        runs = 0
        await c.query('delete from codeact_runs where key = $1', [key])
      }
      if (run) {
        const { js: _js, ...stored } = run
        await c.query('insert into codeact_runs (key, generation, seq, run) values ($1, $2, $3, $4)', [
          key,
          generation,
          runs,
          JSON.stringify(stored),
        ])
        runs++
      }
      await c.query(
        'update codeact_sessions set generation = $2, runs = $3, lease_until = null, pending = null, updated_at = now() where key = $1',
        [key, generation, runs],
      )
      await c.query('commit')
      return { generation, runs }
    } catch (e) {
      if (!(e instanceof LeaseLost)) await c.query('rollback').catch(() => {})
      throw e
    }
  }

  async clear(key: string): Promise<StoreResult<void>> {
    return this.#with(async (c) => {
      await c.query('begin')
      await c.query('delete from codeact_runs where key = $1', [key])
      await c.query('update codeact_sessions set generation = generation + 1, runs = 0, pending = null where key = $1', [key])
      await c.query('commit')
    })
  }

  async drop(key: string): Promise<StoreResult<void>> {
    return this.#with(async (c) => {
      await c.query('delete from codeact_sessions where key = $1', [key])
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#sweeper)
    await this.pool.end().catch(() => {})
  }

  async #with<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<StoreResult<T>> {
    let c: pg.PoolClient
    try {
      c = await this.client()
    } catch (e) {
      return unreachable(e)
    }
    let broken = false
    try {
      return { ok: true, value: await work(c) }
    } catch (e) {
      // A connection that failed mid-query is not given back to the pool.
      broken = !(e instanceof LeaseLost) && !(e instanceof pg.DatabaseError)
      if (e instanceof LeaseLost)
        return {
          ok: false,
          error: {
            code: 'ESTALE',
            message: `this replica's lease on the session lapsed and another replica took it over (the lease lasts ${this.leaseMs} ms past its last renewal); this turn is not recorded: send it again`,
          },
        }
      return unreachable(e)
    } finally {
      c.release(broken)
    }
  }
}

class LeaseLost extends Error {}

/** The record of a turn whose replica died mid-turn: not replayed; the restore note says it was lost. */
function lostRun(row: Row): string {
  const lost: HistoryRun = {
    runId: `lost_${row.lease_token ?? 'turn'}`,
    code: row.pending?.code ?? '',
    seed: '',
    clock: [],
    results: [],
    names: [],
    ok: false,
    lost: 'was lost: the replica running it stopped mid-turn',
  }
  return JSON.stringify(lost)
}

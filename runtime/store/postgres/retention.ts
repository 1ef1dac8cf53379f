/**
 * Retention of the PostgreSQL store: nothing a client causes is kept forever. Every replica sweeps on a
 * timer: MCP events older than `eventTtlMs`, sessions whose last turn is older than `sessionTtlMs` (their
 * runs go with them: `on delete cascade`) and MCP sessions unused as long. Each delete takes a batch of
 * rows by an indexed age column with `for update skip locked`, so replicas sweeping at once split the work
 * instead of waiting on each other, and a session whose lease is live (a turn running anywhere) is never
 * taken. The per-session cap on events is kept on every insert (mcp-events.ts).
 */
import type pg from 'pg'

export interface Retention {
  eventTtlMs: number
  sessionTtlMs: number
  maxEventsPerSession: number
  sweepMs: number
}

/**
 * Resumption needs only the events a client missed while its stream was broken (seconds): an hour is
 * ample. A session is kept a day after its last turn (a conversation taken up the next morning restores
 * by replay; the realm itself is freed after `--realm-idle` anyway).
 */
export const RETENTION_DEFAULTS: Retention = Object.freeze({
  eventTtlMs: 60 * 60_000,
  sessionTtlMs: 24 * 60 * 60_000,
  maxEventsPerSession: 1000,
  sweepMs: 60_000,
})

/** Rows deleted per statement, and statements per table per sweep: a sweep is short, the next goes on. */
const BATCH = 1000
const MAX_BATCHES = 20

export interface Swept {
  events: number
  sessions: number
  mcpSessions: number
}

/** The options given, checked, over the defaults; the sweep runs at least twice per shortest TTL. */
export function retention(options: Partial<Retention>): Retention {
  const r = { ...RETENTION_DEFAULTS }
  for (const k of Object.keys(r) as (keyof Retention)[]) r[k] = options[k] ?? r[k]
  for (const [k, v] of Object.entries(r))
    if (!Number.isInteger(v) || v < 1) throw new TypeError(`codeact: the store's ${k} must be a whole number of at least 1, got ${v}`)
  const sweepMs = options.sweepMs ?? Math.max(10, Math.min(r.sweepMs, Math.floor(Math.min(r.eventTtlMs, r.sessionTtlMs) / 2)))
  return { ...r, sweepMs }
}

const DELETES = {
  events: `delete from codeact_mcp_events where id in (select id from codeact_mcp_events
     where created_at < now() - make_interval(secs => $1) order by created_at limit $2 for update skip locked)`,
  // A live lease (a turn running on some replica) keeps its session, however old its last turn.
  sessions: `delete from codeact_sessions where key in (select key from codeact_sessions
     where updated_at < now() - make_interval(secs => $1) and (lease_until is null or lease_until < now())
     order by updated_at limit $2 for update skip locked)`,
  mcpSessions: `delete from codeact_mcp_sessions where id in (select id from codeact_mcp_sessions
     where used_at < now() - make_interval(secs => $1) order by used_at limit $2 for update skip locked)`,
} as const

/** One sweep: what it deleted. Each statement is its own short transaction. */
export async function sweep(c: pg.PoolClient, r: Retention): Promise<Swept> {
  const ttl = { events: r.eventTtlMs, sessions: r.sessionTtlMs, mcpSessions: r.sessionTtlMs }
  const out: Swept = { events: 0, sessions: 0, mcpSessions: 0 }
  for (const table of Object.keys(DELETES) as (keyof Swept)[]) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const d = await c.query(DELETES[table], [ttl[table] / 1000, BATCH])
      out[table] += d.rowCount ?? 0
      if ((d.rowCount ?? 0) < BATCH) break
    }
  }
  return out
}

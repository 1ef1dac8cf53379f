/**
 * The PostgreSQL schema, created and migrated by codeact on start: `codeact_schema` holds the version
 * applied; each step runs once, in order, in a transaction, under an advisory lock so that replicas
 * starting together migrate once. Documented in docs/scale-out.md ("Session store").
 */
import type pg from 'pg'

/** Serialises migrations across replicas (an arbitrary constant: "codeact" in ASCII). */
const MIGRATION_LOCK = 0x636f646561637400n

const STEPS: readonly string[] = [
  // 1: sessions (version + lease), their runs, the MCP event stream, MCP sessions' initialize requests.
  `create table codeact_sessions (
     key text primary key,
     generation bigint not null default 0,
     runs integer not null default 0,
     lease_token bigint,
     lease_holder text,
     lease_until timestamptz,
     pending jsonb,
     updated_at timestamptz not null default now()
   );
   create sequence codeact_lease_token;
   create table codeact_runs (
     key text not null references codeact_sessions(key) on delete cascade,
     generation bigint not null,
     seq integer not null,
     run jsonb not null,
     primary key (key, generation, seq)
   );
   create table codeact_mcp_sessions (
     id text primary key,
     initialize jsonb not null,
     created_at timestamptz not null default now()
   );
   create table codeact_mcp_events (
     id bigserial primary key,
     stream_id text not null,
     message jsonb not null,
     created_at timestamptz not null default now()
   );
   create index codeact_mcp_events_stream on codeact_mcp_events (stream_id, id);`,
  // 2: retention (retention.ts): events by MCP session (its cap) and by age; sessions by last use.
  `alter table codeact_mcp_events add column session_id text;
   create index codeact_mcp_events_session on codeact_mcp_events (session_id, id);
   create index codeact_mcp_events_created on codeact_mcp_events (created_at);
   alter table codeact_mcp_sessions add column used_at timestamptz not null default now();
   create index codeact_mcp_sessions_used on codeact_mcp_sessions (used_at);
   create index codeact_sessions_updated on codeact_sessions (updated_at);`,
]

export const SCHEMA_VERSION = STEPS.length

/** Applies the steps not yet applied; refuses a database migrated by a newer codeact. */
export async function migrate(client: pg.PoolClient): Promise<void> {
  await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK.toString()])
  try {
    await client.query('create table if not exists codeact_schema (version integer not null)')
    const r = await client.query<{ version: number }>('select version from codeact_schema')
    const at = r.rows[0]?.version ?? 0
    if (at > SCHEMA_VERSION)
      throw new Error(`the database's codeact schema is version ${at}; this codeact knows up to ${SCHEMA_VERSION}: upgrade codeact`)
    for (let v = at; v < SCHEMA_VERSION; v++) {
      await client.query('begin')
      try {
        await client.query(STEPS[v]!)
        if (v === 0 && r.rows.length === 0) await client.query('insert into codeact_schema (version) values (1)')
        else await client.query('update codeact_schema set version = $1', [v + 1])
        await client.query('commit')
      } catch (e) {
        await client.query('rollback')
        throw e
      }
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()])
  }
}

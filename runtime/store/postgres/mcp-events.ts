/**
 * The MCP streamable-HTTP event stream in PostgreSQL (the SDK's `EventStore`): every message the server
 * sends on a stream is stored before it is written to the client, so a client whose stream broke resumes
 * it with `Last-Event-ID` on any replica. Event ids are the rows' ids (increasing across all streams).
 * MCP sessions' initialize requests are kept too, so a replica that never saw a session can take it up.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type pg from 'pg'
import type { McpSessionStore } from '../types.js'

interface Pooled {
  client(): Promise<pg.PoolClient>
}

export class PostgresEventStore implements McpSessionStore {
  readonly #db: Pooled
  readonly #maxEvents: number

  constructor(db: Pooled, maxEventsPerSession = Number.MAX_SAFE_INTEGER) {
    this.#db = db
    this.#maxEvents = maxEventsPerSession
  }

  /**
   * The event stream of MCP session `id`: its events carry the session (stream ids such as the SDK's
   * `_GET_stream` repeat across sessions), its newest `maxEventsPerSession` are kept (the oldest dropped
   * as a new one is stored), and each stored event marks the session used (at most once a minute).
   */
  forSession(id: string): EventStore {
    const scoped: EventStore = {
      storeEvent: async (streamId, message) => {
        const r = await this.#query<{ id: string }>(
          `with cut as (delete from codeact_mcp_events where session_id = $1 and id <= (select id from codeact_mcp_events
             where session_id = $1 order by id desc offset $4 limit 1)),
           used as (update codeact_mcp_sessions set used_at = now() where id = $1 and used_at < now() - interval '1 minute')
           insert into codeact_mcp_events (session_id, stream_id, message) values ($1, $2, $3) returning id`,
          [id, streamId, JSON.stringify(message), this.#maxEvents - 1],
        )
        return String(r.rows[0]!.id)
      },
      getStreamIdForEventId: async (eventId) => (await this.#streamOf(eventId, id))?.stream_id,
      replayEventsAfter: (lastEventId, send) => this.#replay(lastEventId, send, id),
    }
    return scoped
  }

  /** An MCP session closed by its client (DELETE): its initialize, its events and its codeact sessions. */
  async forgetSession(id: string): Promise<void> {
    await this.#query(
      `with e as (delete from codeact_mcp_events where session_id = $1),
       s as (delete from codeact_sessions where starts_with(key, $2))
       delete from codeact_mcp_sessions where id = $1`,
      [id, `c${encodeURIComponent(id)}:`],
    )
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const r = await this.#query<{ id: string }>('insert into codeact_mcp_events (stream_id, message) values ($1, $2) returning id', [
      streamId,
      JSON.stringify(message),
    ])
    return String(r.rows[0]!.id)
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return (await this.#streamOf(eventId))?.stream_id
  }

  replayEventsAfter(lastEventId: string, send: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    return this.#replay(lastEventId, send)
  }

  /** The stream (and session) of an event; undefined for an id never stored, purged, or of another session. */
  async #streamOf(eventId: string, session?: string): Promise<{ stream_id: string; session_id: string | null } | undefined> {
    if (!/^[0-9]{1,19}$/.test(eventId)) return undefined
    const r = await this.#query<{ stream_id: string; session_id: string | null }>(
      'select stream_id, session_id from codeact_mcp_events where id = $1',
      [eventId],
    )
    const row = r.rows[0]
    return row && (session === undefined || row.session_id === session) ? row : undefined
  }

  async #replay(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
    session?: string,
  ): Promise<string> {
    const from = await this.#streamOf(lastEventId, session)
    if (from === undefined) return ''
    const r = await this.#query<{ id: string; message: JSONRPCMessage }>(
      'select id, message from codeact_mcp_events where stream_id = $1 and session_id is not distinct from $3 and id > $2 order by id',
      [from.stream_id, lastEventId, from.session_id],
    )
    // The priming events (empty messages) carry only an id: nothing to send again.
    for (const row of r.rows) if (Object.keys(row.message).length > 0) await send(String(row.id), row.message)
    return from.stream_id
  }

  /** Keeps an MCP session's initialize request: another replica replays it to take the session up. */
  async saveSession(id: string, initialize: unknown): Promise<void> {
    await this.#query('insert into codeact_mcp_sessions (id, initialize) values ($1, $2) on conflict (id) do nothing', [
      id,
      JSON.stringify(initialize),
    ])
  }

  /** The initialize request of MCP session `id`, or undefined when no replica ever started it. */
  async findSession(id: string): Promise<unknown> {
    const r = await this.#query<{ initialize: unknown }>('select initialize from codeact_mcp_sessions where id = $1', [id])
    return r.rows[0]?.initialize
  }

  async #query<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<T>> {
    const c = await this.#db.client()
    try {
      const r = await c.query<T>(text, values)
      c.release()
      return r
    } catch (e) {
      // A connection that failed mid-query is not given back to the pool.
      c.release(true)
      throw e
    }
  }
}

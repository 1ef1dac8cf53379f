/**
 * The MCP streamable-HTTP event stream in PostgreSQL (the SDK's `EventStore`): every message the server
 * sends on a stream is stored before it is written to the client, so a client whose stream broke resumes
 * it with `Last-Event-ID` on any replica. Event ids are the rows' ids (increasing across all streams).
 * MCP sessions' initialize requests are kept too, so a replica that never saw a session can take it up.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type pg from 'pg'
import type { McpSessionStore } from '../types.js'

interface Pooled {
  client(): Promise<pg.PoolClient>
}

export class PostgresEventStore implements McpSessionStore {
  readonly #db: Pooled

  constructor(db: Pooled) {
    this.#db = db
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const r = await this.#query<{ id: string }>('insert into codeact_mcp_events (stream_id, message) values ($1, $2) returning id', [
      streamId,
      JSON.stringify(message),
    ])
    return String(r.rows[0]!.id)
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    if (!/^[0-9]{1,19}$/.test(eventId)) return undefined
    const r = await this.#query<{ stream_id: string }>('select stream_id from codeact_mcp_events where id = $1', [eventId])
    return r.rows[0]?.stream_id
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = await this.getStreamIdForEventId(lastEventId)
    if (streamId === undefined) return ''
    const r = await this.#query<{ id: string; message: JSONRPCMessage }>(
      'select id, message from codeact_mcp_events where stream_id = $1 and id > $2 order by id',
      [streamId, lastEventId],
    )
    // The priming events (empty messages) carry only an id: nothing to send again.
    for (const row of r.rows) if (Object.keys(row.message).length > 0) await send(String(row.id), row.message)
    return streamId
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

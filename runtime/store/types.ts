/**
 * The session store seam: what a session needs to be restored on any replica (its runs — programs, tool
 * results, entropy — since it last began afresh) and, for a shared store, the lease that keeps one
 * session's turns on one replica at a time. Two implementations: `embedded/` (memory and the JSONL log:
 * one process, nothing to install — today's behaviour) and `postgres/` (many replicas).
 *
 * Errors are values: `{ ok: false, error: { code, message } }` with an errno-style code — `EIO` (the store
 * is unreachable), `EBUSY` (another replica runs a turn of this session), `ESTALE` (this replica's lease
 * was taken over: its turn is not recorded).
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { HistoryRun } from '../session-history.js'

export type StoreErrorCode = 'EIO' | 'EBUSY' | 'ESTALE'
export interface StoreError {
  code: StoreErrorCode
  message: string
}
export type StoreResult<T> = { ok: true; value: T } | { ok: false; error: StoreError }

export type Readiness = { ok: true } | { ok: false; reason: string }

/** Where a session's history stands: a replica whose copy differs reloads it before the turn. */
export interface StoreVersion {
  /** Bumped by every reset (and by a fresh start): runs of an older generation are gone. */
  generation: number
  /** Runs recorded in this generation. */
  runs: number
}

/** A session's turn on this replica: the lease is held until `commit` or `abandon`. */
export interface Turn {
  /** The history as stored when the lease was taken. */
  readonly version: StoreVersion
  /** The fencing token of this lease (larger for every take). */
  readonly token: number
  /**
   * Records the turn's run (undefined: nothing ran) and releases the lease, in one transaction, only if
   * the lease is still ours. `restart`: the run began the history afresh (a new realm).
   */
  commit(run: HistoryRun | undefined, restart: boolean): Promise<StoreResult<StoreVersion>>
  /** Releases the lease without recording anything (the turn never started). */
  abandon(): Promise<void>
}

export interface SessionStore {
  /** `embedded` or `postgres`: for messages and `/readyz`. */
  readonly kind: string
  /** Shared by several replicas: turns take a lease and check the history is current. */
  readonly shared: boolean
  /** Can the store take work now? */
  ping(): Promise<Readiness>
  /** The runs of session `key` (`sessionKey(caller, id)`) since it last began afresh, oldest first. */
  load(key: string): Promise<StoreResult<{ version: StoreVersion; runs: HistoryRun[] }>>
  /** Takes session `key`'s lease for one turn (waiting for another replica's turn within the store's bound). */
  begin(key: string, code: string): Promise<StoreResult<Turn>>
  /** Forgets the session's runs (reset): the next turn anywhere begins afresh. */
  clear(key: string): Promise<StoreResult<void>>
  /** Deletes the session (closed): its runs and its row, for every replica. */
  drop?(key: string): Promise<StoreResult<void>>
  /** A shared store's MCP side: the streamable-HTTP event stream and the sessions' initialize requests. */
  readonly mcp?: McpSessionStore
  close(): Promise<void>
}

/**
 * The MCP streamable-HTTP event stream (the SDK's EventStore, for `Last-Event-ID` resumption) and each MCP
 * session's initialize request, so that a replica that never saw a session can take it up. Throws when
 * the store is unreachable (the SDK's EventStore contract).
 */
export interface McpSessionStore extends EventStore {
  saveSession(id: string, initialize: unknown): Promise<void>
  /** The initialize request of MCP session `id`; undefined when no replica ever started it. */
  findSession(id: string): Promise<unknown>
  /** The event stream of MCP session `id` alone (its events capped and scoped to it). */
  forSession?(id: string): EventStore
  /** MCP session `id` closed by its client: its rows go, for every replica. */
  forgetSession?(id: string): Promise<void>
}

/** The readiness check `/readyz` lists: is the session store reachable? */
export function storeReady(store: SessionStore): Promise<Readiness> {
  return store.ping().catch((e: unknown) => ({ ok: false as const, reason: e instanceof Error ? e.message : String(e) }))
}

/** `the session store is unreachable: <why>` — an infrastructure error, never the program's. */
export function unreachable(e: unknown): { ok: false; error: StoreError } {
  const why = e instanceof Error ? e.message || (e as { code?: string }).code || e.name : String(e)
  return { ok: false, error: { code: 'EIO', message: `the session store is unreachable: ${why}` } }
}

/**
 * The public face of a session: a handle whose runs share one persistent realm (REPL semantics: the
 * top-level bindings of one run are the globals of the next). See runtime/sessions.ts for the registry.
 */
import type { RunOptions } from './run-inputs.js'
import type { RunResult } from '../vocabulary/types.js'

export interface SessionOptions {
  /**
   * Resume a known session: its live realm, or (after expiry, a memory kill, or in a new runtime whose
   * `logFile` holds its runs) a restore by replay. Default: a fresh random id.
   */
  id?: string
  /**
   * Who the session belongs to (an MCP session, a user, a tenant). Sessions are per caller and id: another
   * caller naming the same id has a separate session. Its runs run as this caller.
   */
  caller?: string
}

export interface Session {
  readonly id: string
  readonly caller: string | undefined
  /** Runs one program in the session; state persists between runs. Same as `rt.runCode(code, { session })`. */
  runCode(code: string, options?: RunOptions): Promise<RunResult>
  /** TypeScript declarations of the bindings so far: what the next run is checked against. */
  declarations(): string
  /** Forgets every binding; the next run starts in a fresh realm. */
  reset(): Promise<void>
  /**
   * Ends the session and frees its realm; a later run of the same id starts fresh — on every replica with a
   * shared store (its stored history is deleted). `{ here: true }`: only this runtime lets it go (a replica
   * draining); another replica can still take it up.
   */
  close(options?: { here?: boolean }): Promise<void>
}

/**
 * The session API as issue 15 specifies it (session-api.md), reached through the runtime. Kept here so the
 * tests compile before the `sessions` branch lands; once it does this file re-exports the real types.
 */
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import type { ExecuteToolCallsOptions } from '../../runtime/native.js'
import type { RunCodeOptions } from '../../runtime/run-code.js'
import type { RunResult } from '../../vocabulary/types.js'

export interface Session {
  readonly id: string
  runCode(code: string, options?: RunCodeOptions): Promise<RunResult>
  declarations(): string
  reset(): Promise<void>
  close(): Promise<void>
}

export interface SessionLimits {
  max?: number
  idleMs?: number
  memoryMb?: number
}

export type SessionRuntime = Runtime & {
  session(options?: { id?: string; caller?: string }): Session
  runCode(code: string, options?: RunCodeOptions & { session?: Session | string }): Promise<RunResult>
}

export async function sessionRuntime(options: RuntimeOptions & { sessions?: SessionLimits } = {}): Promise<SessionRuntime> {
  return (await createRuntime(options)) as SessionRuntime
}

/** `executeToolCalls(calls, { session })`'s options. */
export function inSession(session: Session | string): ExecuteToolCallsOptions {
  return { session } as ExecuteToolCallsOptions
}

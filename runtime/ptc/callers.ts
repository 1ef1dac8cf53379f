/**
 * Programmatic tool calling's two tags: which callers a tool allows (`allowedCallers`), and who made a call
 * (`caller`, on the logged `tool/call` and in `RunResult.calls`), in the shapes OpenAI's Responses API uses.
 */
import type { AnyToolDefinition, ToolAllowedCaller, ToolAnnotations, ToolCall, ToolCaller } from '../../vocabulary/types.js'

const CALLERS: readonly ToolAllowedCaller[] = ['direct', 'programmatic']

/** The callers a definition allows: both unless it says otherwise. Throws on a value that is neither (API misuse). */
export function allowedCallersOf(def: AnyToolDefinition): readonly ToolAllowedCaller[] {
  const given = def.allowedCallers ?? def.allowed_callers
  if (given === undefined) return CALLERS
  if (!Array.isArray(given) || given.length === 0 || given.some((c) => !CALLERS.includes(c)))
    throw new TypeError(
      `codeact: tool "${def.name}": allowedCallers must list "direct" and/or "programmatic", got ${JSON.stringify(given)}`,
    )
  return given
}

/** Who made a call: a program's sub-call names its run, everything else is direct. */
export function callerOf(call: Pick<ToolCall, 'origin' | 'parentId'>): ToolCaller {
  return call.origin === 'code' && call.parentId !== undefined ? { type: 'program', caller_id: call.parentId } : { type: 'direct' }
}

/** The call as the log records it: tagged with its caller. */
export function withCaller(call: ToolCall): ToolCall {
  return { ...call, caller: callerOf(call) }
}

/** MCP's reading of the hints: a tool changes the world unless it says it is read-only (or says it destroys). */
export function declaresSideEffects(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.destructiveHint === true || annotations?.readOnlyHint !== true
}

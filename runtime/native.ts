/**
 * The native path: the `tool_calls` of one assistant message, executed through the same scheduler and
 * dispatch as a program's sub-calls, answered as the `role: "tool"` messages (OpenAI) or `tool_result`
 * blocks (Anthropic) to append — one per call, in the model's order. Failures are content, never throws.
 */
import { randomUUID } from 'node:crypto'
import type { DispatchEnv } from './dispatch.js'
import { CallScheduler } from './scheduler.js'
import type { ApprovalHandler, JsonValue, ToolCall, ToolResult } from '../vocabulary/types.js'

export interface OpenAIToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}
export interface AnthropicToolUse {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}
export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error: boolean
}

/** The answers, in the model's order; `concludesTurn` tells the caller to skip its next model request. */
export type ToolAnswers<T> = T[] & { concludesTurn: boolean }

export interface ExecuteToolCallsOptions {
  signal?: AbortSignal
  /** Answers the approvals this batch's calls ask for (a `run_code` call's sub-calls included). */
  onApproval?: ApprovalHandler
}

/** Renders a committed result as the content a model reads. `run_code` answers with its observation. */
export type ContentRenderer = (call: ToolCall, result: ToolResult) => { content: string; isError: boolean }

export function renderContent(call: Pick<ToolCall, 'name'>, result: ToolResult): { content: string; isError: boolean } {
  if (!result.ok) return { content: `Error (${result.error.code}): ${result.error.message}`, isError: true }
  if (call.name === RUN_CODE && isRunAnswer(result.value)) return { content: result.value.observation, isError: !result.value.ok }
  const v = result.value
  return { content: typeof v === 'string' ? v : JSON.stringify(v, null, 2), isError: false }
}

export const RUN_CODE = 'run_code'

export function isRunAnswer(v: JsonValue): v is { ok: boolean; observation: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.observation === 'string' && typeof v.ok === 'boolean'
}

type Parsed = { call: ToolCall; argsError?: string }

export async function executeToolCalls(
  env: DispatchEnv,
  maxParallel: number,
  calls: readonly (OpenAIToolCall | AnthropicToolUse)[],
  options: ExecuteToolCallsOptions = {},
): Promise<ToolAnswers<OpenAIToolMessage> | ToolAnswers<AnthropicToolResult>> {
  if (!Array.isArray(calls)) throw new TypeError('codeact: executeToolCalls takes an array of tool calls')
  const shape = detectShape(calls)
  const parsed = calls.map((c): Parsed => (shape === 'openai' ? fromOpenAI(c as OpenAIToolCall) : fromAnthropic(c as AnthropicToolUse)))
  const batchId = `batch_${randomUUID().slice(0, 8)}`
  env.log.append('batch/start', { batchId, ids: parsed.map((p) => p.call.id), shape })
  const signal = options.signal ?? new AbortController().signal
  const scheduler = new CallScheduler({ env, signal, maxParallel, onCommit: () => {} })
  const handler = options.onApproval
  const unscope = handler && env.approvals ? parsed.map((p) => env.approvals!.scope(p.call.id, handler)) : []
  const results = await Promise.all(
    parsed.map((p) => {
      if (p.argsError === undefined) return scheduler.submit(p.call)
      // Arguments that are not JSON never reach dispatch, but are logged like any call.
      env.log.append('tool/call', p.call)
      const result: ToolResult = { ok: false, error: { code: 'EINVAL', message: `${p.call.name}: ${p.argsError}` } }
      env.log.append('tool/result', { id: p.call.id, name: p.call.name, result, durationMs: 0 })
      return Promise.resolve(result)
    }),
  )
  for (const off of unscope) off()
  const concludesTurn = results.some((r) => r.ok && r.concludesTurn === true)
  env.log.append('batch/end', { batchId, concludesTurn, aborted: signal.aborted })
  const answers = results.map((r, i) => {
    const { content, isError } = renderContent(parsed[i]!.call, r)
    const id = parsed[i]!.call.id
    return shape === 'openai'
      ? ({ role: 'tool', tool_call_id: id, content } satisfies OpenAIToolMessage)
      : ({ type: 'tool_result', tool_use_id: id, content, is_error: isError } satisfies AnthropicToolResult)
  })
  return Object.assign(answers, { concludesTurn }) as ToolAnswers<OpenAIToolMessage> | ToolAnswers<AnthropicToolResult>
}

function detectShape(calls: readonly unknown[]): 'openai' | 'anthropic' {
  const kinds = new Set(
    calls.map((c) => {
      const t = (c as { type?: unknown } | null)?.type
      if (t === 'function' && typeof (c as OpenAIToolCall).function?.name === 'string') return 'openai'
      if (t === 'tool_use' && typeof (c as AnthropicToolUse).name === 'string') return 'anthropic'
      throw new TypeError(`codeact: not a tool call: ${JSON.stringify(c)?.slice(0, 200)}`)
    }),
  )
  if (kinds.size > 1) throw new TypeError('codeact: one batch mixes OpenAI and Anthropic tool calls')
  return kinds.has('anthropic') ? 'anthropic' : 'openai'
}

function fromOpenAI(c: OpenAIToolCall): Parsed {
  const call: ToolCall = { id: String(c.id), name: c.function.name, args: null, origin: 'native' }
  const text = c.function.arguments
  if (typeof text !== 'string') return { call, argsError: 'arguments must be a JSON string' }
  if (text.trim() === '') return { call: { ...call, args: {} } }
  try {
    return { call: { ...call, args: JSON.parse(text) as JsonValue } }
  } catch (e) {
    return { call, argsError: `arguments are not valid JSON (${(e as Error).message}); send one JSON object` }
  }
}

function fromAnthropic(c: AnthropicToolUse): Parsed {
  const call: ToolCall = { id: String(c.id), name: c.name, args: null, origin: 'native' }
  try {
    const text = JSON.stringify(c.input ?? {})
    return { call: { ...call, args: JSON.parse(text) as JsonValue } }
  } catch (e) {
    return { call, argsError: `input is not JSON (${(e as Error).message})` }
  }
}

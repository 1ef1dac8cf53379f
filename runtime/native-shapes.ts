/**
 * The tool-call shapes of the SDKs people use, typed structurally so each SDK's own type is assignable
 * without importing it: OpenAI Chat `tool_calls` (function and custom), OpenAI Responses `function_call` /
 * `custom_tool_call` items, Anthropic `tool_use` blocks and LangChain `{ id, name, args }`. Each element is
 * read on its own (a batch may mix shapes) and answered in its own shape.
 */
import type { JsonValue, ToolCall } from '../vocabulary/types.js'

export interface OpenAIFunctionToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}
export interface OpenAICustomToolCall {
  id: string
  type: 'custom'
  custom: { name: string; input: string }
}
/** An element of an OpenAI Chat assistant message's `tool_calls`. */
export type OpenAIToolCall = OpenAIFunctionToolCall | OpenAICustomToolCall
export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/** An OpenAI Responses output item that calls a function tool. */
export interface ResponsesFunctionCall {
  type: 'function_call'
  call_id: string
  name: string
  arguments: string
}
/** An OpenAI Responses output item that calls a custom (freeform) tool. */
export interface ResponsesCustomToolCall {
  type: 'custom_tool_call'
  call_id: string
  name: string
  input: string
}
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output'
  call_id: string
  output: string
}
export interface ResponsesCustomToolCallOutput {
  type: 'custom_tool_call_output'
  call_id: string
  output: string
}

export interface AnthropicToolUse {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error: boolean
}

/** LangChain's `ToolCall` (`AIMessage.tool_calls`). */
export interface LangChainToolCall {
  id?: string | undefined
  name: string
  args: Record<string, unknown>
  type?: 'tool_call' | undefined
}
/** Fields of a LangChain `ToolMessage`; a plain object of this shape is a valid message for a chat model. */
export interface LangChainToolMessage {
  role: 'tool'
  tool_call_id: string
  name: string
  content: string
  status: 'success' | 'error'
}

/**
 * Anything one of the SDKs hands back in a list that holds tool calls. Items that are not calls for the
 * caller to run (Responses `message` / `reasoning` / hosted-tool items, Anthropic `text` / `thinking`
 * blocks) are accepted and passed over, so `response.output` or `message.content` can be passed whole.
 */
export type NativeToolCall =
  | OpenAIToolCall
  | ResponsesFunctionCall
  | ResponsesCustomToolCall
  | AnthropicToolUse
  | LangChainToolCall
  | { readonly type: string }

/** The answer type for each kind of element; elements that are not calls (text, reasoning …) have none. */
export type ToolAnswerFor<C> = C extends { type: 'function' | 'custom'; id: string }
  ? OpenAIToolMessage
  : C extends { type: 'function_call' }
    ? ResponsesFunctionCallOutput
    : C extends { type: 'custom_tool_call' }
      ? ResponsesCustomToolCallOutput
      : C extends { type: 'tool_use' }
        ? AnthropicToolResult
        : C extends { name: string; args: unknown }
          ? LangChainToolMessage
          : C extends { type: infer T }
            ? string extends T
              ? NativeAnswer // an element whose kind is not known statically may be answered in any shape
              : never
            : never

export type NativeAnswer =
  | OpenAIToolMessage
  | ResponsesFunctionCallOutput
  | ResponsesCustomToolCallOutput
  | AnthropicToolResult
  | LangChainToolMessage

export type Shape = 'openai' | 'openai-custom' | 'responses' | 'responses-custom' | 'anthropic' | 'langchain'

/** One element, read: a call to run (or refuse with `argsError`), or an element that is not a call. */
export type ReadElement = { kind: 'call'; shape: Shape; call: ToolCall; argsError?: string } | { kind: 'skip' }

export const RUN_CODE = 'run_code'

export function readElement(el: unknown, index: number, fallback: Shape): ReadElement {
  if (typeof el !== 'object' || el === null) return invalid(`#${index}`, fallback, el)
  const o = el as Record<string, unknown>
  const type = o.type
  const fn = o.function as Record<string, unknown> | undefined
  const custom = o.custom as Record<string, unknown> | undefined
  if (type === 'function' && typeof o.id === 'string' && typeof fn?.name === 'string')
    return fromText('openai', o.id, fn.name, fn.arguments, false)
  if (type === 'custom' && typeof o.id === 'string' && typeof custom?.name === 'string')
    return fromText('openai-custom', o.id, custom.name, custom.input, true)
  if (type === 'function_call' && typeof o.call_id === 'string' && typeof o.name === 'string')
    return fromText('responses', o.call_id, o.name, o.arguments, false)
  if (type === 'custom_tool_call' && typeof o.call_id === 'string' && typeof o.name === 'string')
    return fromText('responses-custom', o.call_id, o.name, o.input, true)
  if (type === 'tool_use' && typeof o.id === 'string' && typeof o.name === 'string')
    return fromValue('anthropic', o.id, o.name, o.input ?? {})
  if ((type === undefined || type === 'tool_call') && typeof o.name === 'string' && 'args' in o) {
    return fromValue('langchain', typeof o.id === 'string' && o.id ? o.id : `lc_${index}`, o.name, o.args ?? {})
  }
  // Known call types with a broken body get an answer of their own; other typed items are not calls.
  const answerable: Record<string, Shape> = {
    function: 'openai',
    custom: 'openai-custom',
    function_call: 'responses',
    custom_tool_call: 'responses-custom',
    tool_use: 'anthropic',
    tool_call: 'langchain',
  }
  if (typeof type === 'string' && !(type in answerable)) return { kind: 'skip' }
  const shape = typeof type === 'string' ? answerable[type]! : typeof o.call_id === 'string' ? 'responses' : fallback
  const id = typeof o.id === 'string' ? o.id : typeof o.call_id === 'string' ? o.call_id : `#${index}`
  return invalid(id, shape, el)
}

function invalid(id: string, shape: Shape, el: unknown): ReadElement {
  const call: ToolCall = { id, name: '(unknown)', args: null, origin: 'native' }
  const text = safeJson(el).slice(0, 200)
  return { kind: 'call', shape, call, argsError: `not a tool call codeact can run: ${text}` }
}

/** Arguments sent as text: JSON for function calls; for a freeform `run_code` call, the program itself. */
function fromText(shape: Shape, id: string, name: string, text: unknown, freeform: boolean): ReadElement {
  const call: ToolCall = { id, name, args: null, origin: 'native' }
  if (typeof text !== 'string') return { kind: 'call', shape, call, argsError: `${freeform ? 'input' : 'arguments'} must be a string` }
  if (freeform && name === RUN_CODE) return { kind: 'call', shape, call: { ...call, args: { code: text } } }
  if (text.trim() === '') return { kind: 'call', shape, call: { ...call, args: {} } }
  try {
    return { kind: 'call', shape, call: { ...call, args: JSON.parse(text) as JsonValue } }
  } catch (e) {
    return { kind: 'call', shape, call, argsError: `arguments are not valid JSON (${(e as Error).message}); send one JSON object` }
  }
}

/** Arguments sent as a value (Anthropic, LangChain): normalised through JSON, as every argument is. */
function fromValue(shape: Shape, id: string, name: string, input: unknown): ReadElement {
  const call: ToolCall = { id, name, args: null, origin: 'native' }
  try {
    const text = JSON.stringify(input)
    return { kind: 'call', shape, call: { ...call, args: text === undefined ? {} : (JSON.parse(text) as JsonValue) } }
  } catch (e) {
    return { kind: 'call', shape, call, argsError: `input is not JSON (${(e as Error).message})` }
  }
}

export function answerIn(shape: Shape, call: ToolCall, content: string, isError: boolean): NativeAnswer {
  switch (shape) {
    case 'openai':
    case 'openai-custom':
      return { role: 'tool', tool_call_id: call.id, content }
    case 'responses':
      return { type: 'function_call_output', call_id: call.id, output: content }
    case 'responses-custom':
      return { type: 'custom_tool_call_output', call_id: call.id, output: content }
    case 'anthropic':
      return { type: 'tool_result', tool_use_id: call.id, content, is_error: isError }
    case 'langchain':
      return { role: 'tool', tool_call_id: call.id, name: call.name, content, status: isError ? 'error' : 'success' }
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}

/**
 * Request fields for the two SDKs people embed codeact in. Pass `rt.tools.definitions()` (every tool, or
 * only `run_code` in code mode) or `[rt.runCodeTool()]`.
 */
import type { JsonSchema } from '../vocabulary/types.js'
import type { FunctionToolDefinition } from './run-code-tool.js'

export interface OpenAITool {
  type: 'function'
  function: { name: string; description: string; parameters: JsonSchema }
}

export interface AnthropicTool {
  name: string
  description: string
  input_schema: JsonSchema
}

/** The `tools` field of an OpenAI Chat Completions request. */
export function toOpenAITools(definitions: readonly FunctionToolDefinition[]): OpenAITool[] {
  return definitions.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: objectSchema(d.parameters) } }))
}

/** The `tools` field of an Anthropic Messages request. */
export function toAnthropicTools(definitions: readonly FunctionToolDefinition[]): AnthropicTool[] {
  return definitions.map((d) => ({ name: d.name, description: d.description, input_schema: objectSchema(d.parameters) }))
}

/** Both APIs require an object schema at the top; a tool whose schema says nothing gets an open object. */
function objectSchema(schema: JsonSchema): JsonSchema {
  return schema.type === 'object' ? schema : { type: 'object', ...schema }
}

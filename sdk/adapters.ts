/**
 * Request fields for the SDKs people embed codeact in, shaped so each is assignable to the official request
 * type without a cast (OpenAI Chat `ChatCompletionTool[]`, Responses `Tool[]`, Anthropic `Tool[]`). Pass
 * `rt.tools.definitions()` (every tool, or only `run_code` in code mode) or `[rt.runCodeTool()]`.
 */
import type { JsonSchema } from '../vocabulary/types.js'
import { RUN_CODE_FREEFORM_NOTE, type FunctionToolDefinition } from './run-code-tool.js'

/** Every tool's arguments are a JSON object; the APIs require `type: "object"` at the top. */
export type ObjectJsonSchema = { type: 'object'; [key: string]: unknown }

export interface OpenAIFunctionTool {
  type: 'function'
  function: { name: string; description: string; parameters: ObjectJsonSchema; strict: boolean }
}
/** A freeform tool: the model sends plain text (a program) instead of JSON arguments. */
export interface OpenAICustomTool {
  type: 'custom'
  custom: { name: string; description: string; format: { type: 'text' } }
}
export type OpenAITool = OpenAIFunctionTool | OpenAICustomTool

export interface OpenAIResponsesFunctionTool {
  type: 'function'
  name: string
  description: string
  parameters: ObjectJsonSchema
  strict: boolean
}
export interface OpenAIResponsesCustomTool {
  type: 'custom'
  name: string
  description: string
  format: { type: 'text' }
}
export type OpenAIResponsesTool = OpenAIResponsesFunctionTool | OpenAIResponsesCustomTool

export interface AnthropicTool {
  name: string
  description: string
  input_schema: ObjectJsonSchema
}

export interface OpenAIToolsOptions {
  /**
   * Names of tools to offer as freeform (custom) tools, whose whole input is text. Meant for `run_code`
   * (`freeform: ['run_code']`): the model writes the program as is instead of JSON-escaping it. A custom
   * call of `run_code` runs its text as the program; of any other tool, its text must be a JSON object.
   */
  freeform?: readonly string[]
}

/** The `tools` field of an OpenAI Chat Completions request. */
export function toOpenAITools(definitions: readonly FunctionToolDefinition[], options: OpenAIToolsOptions = {}): OpenAITool[] {
  const freeform = new Set(options.freeform ?? [])
  return definitions.map((d): OpenAITool => {
    if (freeform.has(d.name))
      return { type: 'custom', custom: { name: d.name, description: freeformDescription(d), format: { type: 'text' } } }
    const parameters = objectSchema(d.parameters)
    return { type: 'function', function: { name: d.name, description: d.description, parameters, strict: isStrictCompatible(parameters) } }
  })
}

/** The `tools` field of an OpenAI Responses request. */
export function toOpenAIResponsesTools(
  definitions: readonly FunctionToolDefinition[],
  options: OpenAIToolsOptions = {},
): OpenAIResponsesTool[] {
  const freeform = new Set(options.freeform ?? [])
  return definitions.map((d): OpenAIResponsesTool => {
    if (freeform.has(d.name)) return { type: 'custom', name: d.name, description: freeformDescription(d), format: { type: 'text' } }
    const parameters = objectSchema(d.parameters)
    return { type: 'function', name: d.name, description: d.description, parameters, strict: isStrictCompatible(parameters) }
  })
}

/** The `tools` field of an Anthropic Messages request. */
export function toAnthropicTools(definitions: readonly FunctionToolDefinition[]): AnthropicTool[] {
  return definitions.map((d) => ({ name: d.name, description: d.description, input_schema: objectSchema(d.parameters) }))
}

/** A tool whose schema says nothing gets an open object. */
export function objectSchema(schema: JsonSchema): ObjectJsonSchema {
  return { ...schema, type: 'object' }
}

/**
 * Whether OpenAI strict mode (structured outputs) accepts the schema as is: every object closed
 * (`additionalProperties: false`) with every property required, all the way down. Strict mode is only
 * turned on where it holds, so a schema with optional fields is never rejected or silently changed.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return typeof schema !== 'boolean'
  const s = schema as Record<string, unknown>
  // Keywords strict mode does not support.
  for (const k of [
    'patternProperties',
    'propertyNames',
    'unevaluatedProperties',
    'if',
    'then',
    'else',
    'not',
    'dependentRequired',
    'dependentSchemas',
  ]) {
    if (k in s) return false
  }
  const props = typeof s.properties === 'object' && s.properties !== null ? (s.properties as Record<string, unknown>) : undefined
  const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || props !== undefined
  if (isObject) {
    if (s.additionalProperties !== false) return false
    const required = Array.isArray(s.required) ? s.required : []
    if (!Object.keys(props ?? {}).every((p) => required.includes(p))) return false
  }
  const children: unknown[] = [
    ...Object.values(props ?? {}),
    s.items,
    ...list(s.prefixItems),
    ...list(s.anyOf),
    ...list(s.oneOf),
    ...list(s.allOf),
  ]
  for (const defs of [s.$defs, s.definitions]) if (typeof defs === 'object' && defs !== null) children.push(...Object.values(defs))
  return children.every((c) => c === undefined || isStrictCompatible(c))
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : []
}

function freeformDescription(d: FunctionToolDefinition): string {
  return d.name === 'run_code'
    ? `${d.description}\n\n${RUN_CODE_FREEFORM_NOTE}`
    : `${d.description}\n\nThe input is one JSON object of this shape: ${JSON.stringify(d.parameters)}`
}

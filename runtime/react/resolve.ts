/**
 * What a parsed action means: which registered tool its name is (exact, else the one that differs only in
 * case), and what its input becomes as arguments — a JSON object as it is, a plain string (or a JSON scalar)
 * for a tool with one parameter wrapped as that parameter, nothing for a tool that needs nothing.
 */
import type { JsonSchema, JsonValue } from '../../vocabulary/types.js'
import type { ToolRegistry } from '../registry.js'
import { parseLenientJson } from './json-lenient.js'
import type { ParsedAction } from './parse.js'

export type ResolvedAction = { name: string; args: JsonValue } | { name: string; argsError: string }

export function resolveAction(registry: ToolRegistry, action: ParsedAction): ResolvedAction {
  const name = toolName(registry, action.tool)
  const tool = registry.get(name)
  // An unknown tool goes to dispatch as it is, which answers ENOSYS with the names it knows.
  if (!tool) return { name, args: {} }
  const shape = shapeOf(tool.parameters)
  const input = action.input?.trim()
  if (input === undefined || input === '') {
    if (shape.required.length === 0) return { name, args: {} }
    return { name, argsError: `${missing(action)}; ${expected(name, shape, action.form)}` }
  }
  if (input.startsWith('{')) {
    const json = parseLenientJson(input)
    if (json.ok) return { name, args: json.value }
    if (shape.single === undefined)
      return { name, argsError: `the input is not valid JSON (${json.why}); ${expected(name, shape, action.form)}` }
  }
  if (shape.single === undefined)
    return { name, argsError: `it takes a JSON object, not a plain value; ${expected(name, shape, action.form)}` }
  return { name, args: { [shape.single.name]: scalar(unquote(input), shape.single.type) } }
}

interface Shape {
  properties: string[]
  required: string[]
  /** The one parameter a plain input fills: the only property, or the only required one. */
  single: { name: string; type: unknown } | undefined
}

function shapeOf(schema: JsonSchema): Shape {
  const props = isRecord(schema.properties) ? schema.properties : {}
  const properties = Object.keys(props)
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []
  const one = properties.length === 1 ? properties[0] : required.length === 1 ? required[0] : undefined
  const single = one === undefined ? undefined : { name: one, type: isRecord(props[one]) ? props[one].type : undefined }
  return { properties, required, single }
}

function toolName(registry: ToolRegistry, written: string): string {
  if (registry.get(written)) return written
  const same = registry.directNames().filter((n) => n.toLowerCase() === written.toLowerCase())
  return same.length === 1 ? same[0]! : written
}

/** A plain input for a parameter that is not a string: its JSON reading when it has one (`3`, `true`). */
function scalar(text: string, type: unknown): JsonValue {
  if (type === 'string' || type === undefined) return text
  const json = parseLenientJson(text)
  return json.ok ? json.value : text
}

function unquote(s: string): string {
  return /^(["'`]).*\1$/s.test(s) && s.length >= 2 ? s.slice(1, -1) : s
}

function missing(action: ParsedAction): string {
  return action.form === 'langchain' ? 'no `Action Input:` line followed the `Action:`' : 'the brackets are empty'
}

/** The form the model should have written, with this tool's parameters in it. */
export function expected(name: string, shape: Pick<Shape, 'properties' | 'required'>, form: ParsedAction['form']): string {
  const example = `{${shape.properties.map((p) => `"${p}": …`).join(', ')}}`
  const params = shape.properties.map((p) => (shape.required.includes(p) ? p : `${p}?`)).join(', ')
  return form === 'langchain'
    ? `write \`Action: ${name}\` then \`Action Input: ${example}\` (parameters: ${params || 'none'})`
    : `write \`Action: ${name}[${example}]\` (parameters: ${params || 'none'})`
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

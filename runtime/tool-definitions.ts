/**
 * A registered tool as a function-calling definition: name, description, JSON Schema parameters, and the
 * same schema as a Standard Schema object whose `validate` is the dispatcher's own validator.
 */
import { standardToolSchema } from '../sdk/standard-schema.js'
import type { FunctionToolDefinition } from '../sdk/run-code-tool.js'
import { toJson } from './dispatch.js'
import type { RegisteredTool } from './registry.js'

export function functionDefinition(tool: RegisteredTool, description = tool.definition.description): FunctionToolDefinition {
  const inputSchema = standardToolSchema(tool.parameters, (value) => {
    const json = toJson(value)
    if (!json.ok) return { ok: false, message: `arguments are not JSON (${json.why})` }
    return tool.validate(json.value)
  })
  const def = { name: tool.definition.name, description, parameters: tool.parameters }
  // Not enumerable: the definition stays plain JSON for request bodies, snapshots and structured clones.
  Object.defineProperty(def, 'inputSchema', { value: inputSchema, enumerable: false })
  return def as FunctionToolDefinition
}

/**
 * OpenAI Agents SDK: `new Agent({ name, instructions, tools: openaiAgentsTools(rt) })`.
 * Function tools built as the SDK's `FunctionTool` objects (nothing of `@openai/agents` is imported). Strict
 * mode is on where the schema allows it (`run_code`'s always does); the model reads each call's `content`.
 */
import { isStrictCompatible, type Runtime } from '../runtime/index.js'
import { selectDefinitions, type AdapterOptions } from './select.js'

type JsonSchemaEntry = Record<string, unknown>
/** The shapes of the SDK's `JsonObjectSchemaStrict` / `JsonObjectSchemaNonStrict`. */
export type AgentsParameters =
  | { type: 'object'; properties: Record<string, JsonSchemaEntry>; required: string[]; additionalProperties: false }
  | { type: 'object'; properties: Record<string, JsonSchemaEntry>; required: string[]; additionalProperties: true }

export interface AgentsFunctionTool {
  type: 'function'
  name: string
  description: string
  parameters: AgentsParameters
  strict: boolean
  invoke(
    runContext: unknown,
    input: string,
    details?: { toolCall?: { callId?: string | undefined } | undefined; signal?: AbortSignal | undefined },
  ): Promise<string>
  needsApproval(): Promise<boolean>
  isEnabled(): Promise<boolean>
}

export function openaiAgentsTools(rt: Runtime, options: AdapterOptions = {}): AgentsFunctionTool[] {
  return selectDefinitions(rt, options).map((d) => {
    const strict = isStrictCompatible(d.parameters)
    const properties = isRecord(d.parameters.properties) ? (d.parameters.properties as Record<string, JsonSchemaEntry>) : {}
    const required = Array.isArray(d.parameters.required) ? d.parameters.required.filter((r): r is string => typeof r === 'string') : []
    const base = { ...d.parameters, type: 'object' as const, properties, required }
    return {
      type: 'function',
      name: d.name,
      description: d.description,
      parameters: strict ? { ...base, additionalProperties: false } : { ...base, additionalProperties: true },
      strict,
      invoke: async (_runContext, input, details) => {
        let args: unknown
        try {
          args = input.trim() === '' ? {} : JSON.parse(input)
        } catch (e) {
          return `Error (EINVAL): ${d.name}: arguments are not valid JSON (${(e as Error).message}); send one JSON object`
        }
        return (await rt.callTool(d.name, args, { callId: details?.toolCall?.callId, signal: details?.signal })).content
      },
      needsApproval: async () => false,
      isEnabled: async () => true,
    }
  })
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
export { openaiAgentsProgramTool, type AgentsProgramTool } from './ptc.js'

/**
 * `--expose-tools`: every registered tool as an MCP tool of its own. A tool with a typed result declares
 * it as `outputSchema` and answers with `structuredContent` (MCP wants an object at the top, so any other
 * type is wrapped as `{ result }`); the text is the value as compact JSON (a string as it is). Annotations
 * pass through (the workspace tools' own, an imported MCP tool's from its server). The call goes through
 * `rt.executeToolCalls`, so validation, hooks, the scheduler and the log apply as to any native call.
 */
import { randomUUID } from 'node:crypto'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Runtime } from '../runtime/create-runtime.js'
import { createValidator } from '../runtime/validate.js'
import { toJsonSchema } from '../sdk/schema.js'
import type { AnyToolDefinition, ApprovalHandler, EventData, JsonSchema, JsonValue, ToolResult } from '../vocabulary/types.js'

interface Output {
  schema: JsonSchema
  /** The value travels as `{ result: value }`. */
  wrapped: boolean
}

const cache = new WeakMap<AnyToolDefinition, { output: Output | undefined; check: ((v: JsonValue) => boolean) | undefined }>()

function outputOf(def: AnyToolDefinition): { output: Output | undefined; check: ((v: JsonValue) => boolean) | undefined } {
  let found = cache.get(def)
  if (!found) {
    const schema = def.output ? toJsonSchema(def.output) : undefined
    let output: Output | undefined
    // A string result is its text already: declaring it would send every file's content twice.
    if (schema && schema.type !== 'string' && Object.keys(schema).length > 0) {
      output =
        schema.type === 'object'
          ? { schema, wrapped: false }
          : { schema: { type: 'object', properties: { result: schema }, required: ['result'] }, wrapped: true }
    }
    const validate = output && def.output ? createValidator(def.output) : undefined
    found = { output, check: validate ? (v) => validate(v).ok : undefined }
    cache.set(def, found)
  }
  return found
}

export function exposedTool(def: AnyToolDefinition): Tool {
  const { output } = outputOf(def)
  return {
    name: def.name,
    description: def.description,
    inputSchema: { ...toJsonSchema(def.parameters), type: 'object' } as Tool['inputSchema'],
    ...(output ? { outputSchema: output.schema as Tool['outputSchema'] } : {}),
    ...(def.annotations ? { annotations: { ...def.annotations } } : {}),
  }
}

/** Runs one registered tool as a native call and answers it the MCP way. */
export async function callExposedTool(
  rt: Runtime,
  def: AnyToolDefinition,
  args: Record<string, unknown>,
  signal: AbortSignal,
  onApproval?: ApprovalHandler,
  /** Minimal mode: the connection whose persistent shell the call uses. */
  shellSession?: string,
): Promise<CallToolResult> {
  const id = `mcp_${randomUUID().slice(0, 8)}`
  // The committed result (after post-execute hooks) is the log's `tool/result` for this call.
  let committed: ToolResult | undefined
  const off = rt.on('event', (e) => {
    if (e.type === 'tool/result' && (e.data as EventData['tool/result']).id === id) committed = (e.data as EventData['tool/result']).result
  })
  let answer
  try {
    ;[answer] = await rt.executeToolCalls([{ type: 'tool_use', id, name: def.name, input: args }], {
      signal,
      ...(onApproval ? { onApproval } : {}),
      ...(shellSession !== undefined ? { session: shellSession } : {}),
    })
  } finally {
    off()
  }
  if (!committed?.ok)
    return { content: [{ type: 'text', text: answer?.content ?? `Error (ECANCELED): ${def.name} was not answered` }], isError: true }
  const value = committed.value
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const { output, check } = outputOf(def)
  if (!output) return { content: [{ type: 'text', text }] }
  if (check && !check(value)) {
    // A client checks structuredContent against outputSchema; a value that breaks it is the tool's bug.
    return {
      content: [
        {
          type: 'text',
          text: `Error (ETOOL): ${def.name} returned a value that does not match its declared output type: ${cutText(text, 500)}`,
        },
      ],
      isError: true,
    }
  }
  const structured = output.wrapped ? { result: value } : (value as { [key: string]: JsonValue })
  return { content: [{ type: 'text', text }], structuredContent: structured }
}

function cutText(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text
}

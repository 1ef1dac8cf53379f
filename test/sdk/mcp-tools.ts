/** The 89 recorded MCP tools (test/sdk/fixtures/mcp-tool-schemas), named as the MCP import names them (`server__tool`). */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { JsonSchema, ToolDefinition } from '../../vocabulary/types.js'

const MCP_DIR = fileURLToPath(new URL('./fixtures/mcp-tool-schemas', import.meta.url))

interface McpTool {
  name: string
  description?: string
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
}

/** Every recorded server's tools, as registry tools with a stub execute. */
export function recordedMcpTools(): ToolDefinition[] {
  return readdirSync(MCP_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const server = f.replace(/\.json$/, '').replace(/[^A-Za-z0-9_]/g, '_')
      const data = JSON.parse(readFileSync(`${MCP_DIR}/${f}`, 'utf8')) as { tools: McpTool[] }
      return data.tools.map(
        (t): ToolDefinition => ({
          name: `${server}__${t.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
          description: t.description ?? '',
          parameters: t.inputSchema,
          ...(t.outputSchema ? { output: t.outputSchema } : {}),
          execute: () => null,
        }),
      )
    })
}

/** The same tools as function-calling JSON (the OpenAI `tools` array a model would otherwise get). */
export function functionCallingJson(tools: readonly ToolDefinition[]): string {
  return JSON.stringify(
    tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
  )
}

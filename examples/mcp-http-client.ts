/**
 * A generic harness driving codeact over streamable HTTP with the official MCP SDK client: list the tools,
 * run a program while its console output streams in, and read the structured RunResult.
 *
 *   node bin/codeact.mjs mcp --http 8765 --tools examples/tools.ts &
 *   node scripts/run-ts.mjs examples/mcp-http-client.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'

const client = new Client({ name: 'my-harness', version: '1.0.0' })
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) =>
  console.error(`[run_code ${n.params.level}] ${String(n.params.data)}`),
)
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.CODEACT_MCP_URL ?? 'http://127.0.0.1:8765/mcp')))

const { tools } = await client.listTools()
// Give the model `tools` as they are: run_code's description already carries the TypeScript SDK.
console.error(`tools: ${tools.map((t) => t.name).join(', ')}`)

const result = (await client.callTool({
  name: 'run_code',
  arguments: { code: `const shops = await tools.list_shops({}); console.log(shops.length + ' shops'); return shops` },
})) as CallToolResult
// `content` is the observation text a model reads; `structuredContent` is the capped result (value, error, one line per call).
console.log(result.isError ? 'failed' : 'ok', JSON.stringify(result.structuredContent, null, 2))
await client.close()

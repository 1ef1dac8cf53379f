/**
 * MCP export: a runtime served as an MCP server. It offers `run_code` (the SDK in its description, or for
 * large registries a short index plus `search_tools` / `describe_tool`), and with `exposeTools` the
 * registered tools themselves, executed through `rt.executeToolCalls` so hooks and the log apply.
 * While a program runs, its console output streams as `notifications/message` (and as progress when the
 * client sent a progressToken); the client's cancellation aborts the run.
 */
import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { Runtime } from '../runtime/create-runtime.js'
import type { ApprovalHandler, EventData, JsonSchema, LogLevel, RunEvent } from '../vocabulary/types.js'
import {
  DESCRIBE_TOOL,
  DESCRIBE_TOOL_SCHEMA,
  SEARCH_TOOLS,
  SEARCH_TOOLS_SCHEMA,
  describeTool,
  discoveryDescription,
  needsDiscovery,
  searchTools,
} from '../sdk/mcp/discovery.js'
import { elicitApproval } from './elicit.js'

const RUN_CODE = 'run_code'

export interface McpExportOptions {
  /** Also offer every registered tool as an MCP tool. Default false: `run_code` only. */
  exposeTools?: boolean
  /** `auto` (default): discovery tools when the registry is large (> 40 tools or > 16 KB of declarations). */
  discovery?: 'auto' | 'always' | 'never'
  /** The server's name in `initialize` (default "codeact"). */
  name?: string
  version?: string
}

export interface McpExport {
  /** A new protocol server for one connection (stdio, or one HTTP session); all share the runtime. */
  createServer(): Server
  /** Sends `notifications/tools/list_changed` to every connected client (call after the registry changed). */
  notifyToolsChanged(): void
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

export function createMcpExport(rt: Runtime, options: McpExportOptions = {}): McpExport {
  const servers = new Set<Server>()
  const discovery = () => {
    if (options.discovery === 'always') return true
    if (options.discovery === 'never') return false
    return needsDiscovery(rt.tools.names().length, rt.sdk.declarations())
  }

  const listTools = (): Tool[] => {
    const useDiscovery = discovery()
    const runCode = rt.runCodeTool()
    const list: Tool[] = [
      {
        name: RUN_CODE,
        description: useDiscovery ? discoveryDescription(rt.tools.names(), rt.limits) : runCode.description,
        inputSchema: objectSchema(runCode.parameters),
      },
    ]
    if (useDiscovery) {
      list.push(
        { name: SEARCH_TOOLS, description: 'Find tools by what they do; returns their TypeScript declarations for use in run_code.', inputSchema: objectSchema(SEARCH_TOOLS_SCHEMA), annotations: { readOnlyHint: true } },
        { name: DESCRIBE_TOOL, description: "One tool's TypeScript declaration (arguments, result type and docs), for use in run_code.", inputSchema: objectSchema(DESCRIBE_TOOL_SCHEMA), annotations: { readOnlyHint: true } },
      )
    }
    if (options.exposeTools) {
      const taken = new Set(list.map((t) => t.name))
      for (const d of rt.tools.definitions()) {
        if (!taken.has(d.name)) list.push({ name: d.name, description: d.description, inputSchema: objectSchema(d.parameters) })
      }
    }
    return list
  }

  const callTool = async (name: string, args: Record<string, unknown>, extra: Extra, onApproval?: ApprovalHandler): Promise<CallToolResult> => {
    if (name === RUN_CODE) return runCode(rt, args, extra, onApproval)
    if (name === SEARCH_TOOLS && discovery()) {
      if (typeof args.query !== 'string') return errorResult('EINVAL: search_tools needs { query: string }')
      const limit = typeof args.limit === 'number' ? args.limit : undefined
      return { content: [{ type: 'text', text: await searchTools(rt.sdk.declarations(), args.query, limit) }] }
    }
    if (name === DESCRIBE_TOOL && discovery()) {
      if (typeof args.name !== 'string') return errorResult('EINVAL: describe_tool needs { name: string }')
      const found = await describeTool(rt.sdk.declarations(), args.name)
      return found.ok ? { content: [{ type: 'text', text: '```ts\n' + found.text + '\n```' }] } : errorResult(found.message)
    }
    if (!options.exposeTools) return errorResult(`ENOSYS: unknown tool "${name}"; this server offers run_code${discovery() ? ', search_tools and describe_tool' : ''}`)
    const [answer] = await rt.executeToolCalls([{ type: 'tool_use', id: `mcp_${randomUUID().slice(0, 8)}`, name, input: args }], { signal: extra.signal, ...(onApproval ? { onApproval } : {}) })
    return { content: [{ type: 'text', text: answer!.content }], ...(answer!.is_error ? { isError: true } : {}) }
  }

  return {
    createServer: () => {
      const server = new Server(
        { name: options.name ?? 'codeact', version: options.version ?? '0.1.0' },
        { capabilities: { tools: { listChanged: true }, logging: {} } },
      )
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }))
      // Calls that ask for approval are put to this connection's client (elicitation).
      const onApproval = elicitApproval(server)
      server.setRequestHandler(CallToolRequestSchema, (req, extra) => callTool(req.params.name, req.params.arguments ?? {}, extra, onApproval))
      servers.add(server)
      server.onclose = () => servers.delete(server)
      return server
    },
    notifyToolsChanged: () => {
      for (const s of servers) void s.sendToolListChanged().catch(() => {})
    },
  }
}

/** One program: console lines stream to the client while it runs; the answer is the observation. */
async function runCode(rt: Runtime, args: Record<string, unknown>, extra: Extra, onApproval?: ApprovalHandler): Promise<CallToolResult> {
  if (typeof args.code !== 'string') return errorResult('EINVAL: run_code needs { code: string } (a TypeScript program)')
  const runId = `mcp_${randomUUID().slice(0, 8)}`
  const progressToken = extra._meta?.progressToken
  let lines = 0
  const off = rt.on('event', (event: RunEvent) => {
    if (event.type !== 'console') return
    const data = event.data as EventData['console']
    if (data.runId !== runId) return
    const notify = (n: ServerNotification) => void extra.sendNotification(n).catch(() => {})
    notify({ method: 'notifications/message', params: { level: LEVELS[data.level], logger: 'run_code', data: data.text } })
    if (progressToken !== undefined) notify({ method: 'notifications/progress', params: { progressToken, progress: ++lines, message: data.text } })
  })
  try {
    const result = await rt.runCode(args.code, { signal: extra.signal, parentId: runId, ...(onApproval ? { onApproval } : {}) })
    const { events: _events, ...rest } = result
    const structured = JSON.parse(JSON.stringify(rest)) as Record<string, unknown>
    return { content: [{ type: 'text', text: result.observation }], structuredContent: structured, ...(result.ok ? {} : { isError: true }) }
  } finally {
    off()
  }
}

const LEVELS: Record<LogLevel, LoggingLevel> = { log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug' }

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** MCP requires `inputSchema.type === "object"`. */
function objectSchema(schema: JsonSchema): Tool['inputSchema'] {
  return { ...schema, type: 'object' } as Tool['inputSchema']
}

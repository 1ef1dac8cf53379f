/**
 * MCP export: a runtime served as an MCP server. It offers `run_code` (the SDK in its description, or for
 * large registries a short index plus `search_tools` / `describe_tool`), and with `exposeTools` the
 * registered tools themselves (see exposed-tools.ts). While a program runs, its console output streams as
 * `notifications/message` at or above the session's `logging/setLevel` (and as progress when the client
 * sent a progressToken), all before the result; the client's cancellation, or its going away, aborts the
 * run. `notifications/tools/list_changed` follows every change of the registry.
 */
import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { Runtime } from '../runtime/create-runtime.js'
import type { Session as CodeactSession } from '../runtime/session.js'
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
import { callExposedTool, exposedTool } from './exposed-tools.js'
import { RUN_CODE_OUTPUT_SCHEMA, structuredRunResult } from './run-result.js'

const RUN_CODE = 'run_code'

export interface McpExportOptions {
  /** Also offer every registered tool as an MCP tool. Default false: `run_code` only. */
  exposeTools?: boolean
  /** Minimal mode: offer the registered tools (the bash and the editor) and nothing else, no `run_code`. */
  minimal?: boolean
  /** `auto` (default): discovery tools when the registry is large (> 40 tools or > 16 KB of declarations). */
  discovery?: 'auto' | 'always' | 'never'
  /** The server's name in `initialize` (default "codeact"). */
  name?: string
  version?: string
  /**
   * Each connection (the stdio client, one HTTP session) is a codeact session: the top-level bindings of
   * one run_code call are in scope in its next ones (default true). `false`: every call is stateless.
   */
  sessions?: boolean
}

export interface McpServerOptions {
  /**
   * Who this connection is (an HTTP session id; stdio gets a random one). Runs of different callers never
   * share a sandbox process.
   */
  caller?: string
}

export interface McpExport {
  /** A new protocol server for one connection (stdio, or one HTTP session); all share the runtime. */
  createServer(options?: McpServerOptions): Server
  /**
   * Sends `notifications/tools/list_changed` to every connected client. Registry changes send it by
   * themselves; call this when something else changed what `tools/list` answers.
   */
  notifyToolsChanged(): void
  /** Stops following the registry (the servers already created keep working). */
  close(): void
  /** Tool calls being answered now (`run_code` and exposed tools), across all connections. */
  inFlight(): number
  /**
   * Stops every call in flight (a server shutting down): each run ends `aborted`, every pending tool call is
   * answered, and the answer's text begins with `reason`.
   */
  abortCalls(reason: string): void
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** RFC 5424 order, as MCP's `logging/setLevel` uses it. */
const SEVERITY: Record<LoggingLevel, number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4, critical: 5, alert: 6, emergency: 7 }
const LEVELS: Record<LogLevel, LoggingLevel> = { log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug' }

/** What the model is told when its calls share state. */
const STATE_NOTE =
  '\n\nState persists between run_code calls of this connection: top-level const/let/var/function/class declarations of one call are in scope in the next ones (live values, not copies); a later call may declare a name again.'

export function createMcpExport(rt: Runtime, options: McpExportOptions = {}): McpExport {
  const servers = new Set<Server>()
  const keepsState = options.sessions !== false
  const discovery = () => {
    if (options.discovery === 'always') return true
    if (options.discovery === 'never') return false
    return needsDiscovery(rt.tools.names().length, rt.sdk.declarations())
  }

  const listTools = (): Tool[] => {
    if (options.minimal) return rt.tools.names().flatMap((name) => (rt.tools.get(name) ? [exposedTool(rt.tools.get(name)!)] : []))
    const useDiscovery = discovery()
    const runCode = rt.runCodeTool()
    const list: Tool[] = [
      {
        name: RUN_CODE,
        description:
          (useDiscovery ? discoveryDescription(rt.tools.names(), rt.limits) : runCode.description) + (keepsState ? STATE_NOTE : ''),
        inputSchema: objectSchema(runCode.parameters),
        outputSchema: RUN_CODE_OUTPUT_SCHEMA as Tool['outputSchema'],
        // A program can do anything its tools can.
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      },
    ]
    if (useDiscovery) {
      const lookup = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
      list.push(
        {
          name: SEARCH_TOOLS,
          description: 'Find tools by what they do; returns their TypeScript declarations for use in run_code.',
          inputSchema: objectSchema(SEARCH_TOOLS_SCHEMA),
          annotations: lookup,
        },
        {
          name: DESCRIBE_TOOL,
          description: "One tool's TypeScript declaration (arguments, result type and docs), for use in run_code.",
          inputSchema: objectSchema(DESCRIBE_TOOL_SCHEMA),
          annotations: lookup,
        },
      )
    }
    if (options.exposeTools) {
      const taken = new Set(list.map((t) => t.name))
      for (const name of rt.tools.names()) {
        const def = rt.tools.get(name)
        if (def && !taken.has(name)) list.push(exposedTool(def))
      }
    }
    return list
  }

  const callTool = async (name: string, args: Record<string, unknown>, extra: Extra, session: Session): Promise<CallToolResult> => {
    if (options.minimal) {
      const def = rt.tools.get(name)
      if (!def) return errorResult(`ENOSYS: unknown tool "${name}"; this server offers ${rt.tools.names().join(' and ')}`)
      return callExposedTool(rt, def, args, extra.signal, session.onApproval, session.caller)
    }
    if (name === RUN_CODE) return runCode(rt, args, extra, session)
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
    const def = options.exposeTools ? rt.tools.get(name) : undefined
    if (!def)
      return errorResult(
        `ENOSYS: unknown tool "${name}"; this server offers run_code${discovery() ? ', search_tools and describe_tool' : ''}${options.exposeTools ? ' and the tools tools/list names' : ''}`,
      )
    return callExposedTool(rt, def, args, extra.signal, session.onApproval)
  }

  // Each call in flight, stoppable by abortCalls (its reason is the AbortSignal's).
  const inFlight = new Set<AbortController>()
  const trackedCall = async (name: string, args: Record<string, unknown>, extra: Extra, session: Session): Promise<CallToolResult> => {
    const stop = new AbortController()
    inFlight.add(stop)
    try {
      const result = await callTool(name, args, { ...extra, signal: AbortSignal.any([extra.signal, stop.signal]) }, session)
      return stop.signal.aborted ? withNote(result, String(stop.signal.reason)) : result
    } finally {
      inFlight.delete(stop)
    }
  }

  const notifyToolsChanged = () => {
    for (const s of servers) void s.sendToolListChanged().catch(() => {})
  }
  // One notification for a burst of changes (an MCP server re-listing unregisters, then registers).
  let pending = false
  const offRegistry = rt.tools.onChange(() => {
    if (pending) return
    pending = true
    queueMicrotask(() => {
      pending = false
      notifyToolsChanged()
    })
  })

  return {
    createServer: (serverOptions = {}) => {
      const server = new Server(
        { name: options.name ?? 'codeact', version: options.version ?? '0.1.0' },
        { capabilities: { tools: { listChanged: true }, logging: {} } },
      )
      const caller = serverOptions.caller ?? `mcp_${randomUUID()}`
      const session: Session = {
        caller,
        minLevel: 'debug',
        onApproval: elicitApproval(server),
        ...(keepsState ? { state: rt.session({ id: `mcp:${caller}`, caller }) } : {}),
      }
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }))
      server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
        trackedCall(req.params.name, req.params.arguments ?? {}, extra, session),
      )
      // Replaces the SDK's own handler: the level is this connection's (one server per stdio client or HTTP session).
      server.setRequestHandler(SetLevelRequestSchema, (req) => {
        session.minLevel = req.params.level
        return {}
      })
      servers.add(server)
      const previous = server.onclose
      server.onclose = () => {
        previous?.()
        servers.delete(server)
        // Here only: a draining replica's sessions go on elsewhere; a client's DELETE deletes them (serve.ts).
        void session.state?.close({ here: true }).catch(() => {})
      }
      return server
    },
    notifyToolsChanged,
    close: () => offRegistry(),
    inFlight: () => inFlight.size,
    abortCalls: (reason) => {
      for (const stop of inFlight) stop.abort(reason)
    },
  }
}

interface Session {
  caller: string
  minLevel: LoggingLevel
  /** Calls that ask for approval are put to this connection's client (elicitation). */
  onApproval: ApprovalHandler
  /** The connection's codeact session (unless the export is stateless). */
  state?: CodeactSession
}

/**
 * One program: console lines stream to the client while it runs (every notification handed to the
 * transport before the result is returned, so none can arrive after it); the answer is the observation
 * as text and the capped structured result.
 */
async function runCode(rt: Runtime, args: Record<string, unknown>, extra: Extra, session: Session): Promise<CallToolResult> {
  if (typeof args.code !== 'string') return errorResult('EINVAL: run_code needs { code: string } (a TypeScript program)')
  const runId = `mcp_${randomUUID().slice(0, 8)}`
  const progressToken = extra._meta?.progressToken
  const sent: Promise<void>[] = []
  const notify = (n: ServerNotification) => void sent.push(extra.sendNotification(n).catch(() => {}))
  let lines = 0
  const off = rt.on('event', (event: RunEvent) => {
    if (event.type !== 'console') return
    const data = event.data as EventData['console']
    if (data.runId !== runId) return
    const level = LEVELS[data.level]
    if (SEVERITY[level] >= SEVERITY[session.minLevel])
      notify({ method: 'notifications/message', params: { level, logger: 'run_code', data: data.text } })
    if (progressToken !== undefined)
      notify({ method: 'notifications/progress', params: { progressToken, progress: ++lines, message: data.text } })
  })
  try {
    // The session is the caller: runs of different sessions never share a sandbox process.
    const result = await rt.runCode(args.code, {
      signal: extra.signal,
      parentId: runId,
      caller: session.caller,
      onApproval: session.onApproval,
      ...(session.state ? { session: session.state } : {}),
    })
    await Promise.all(sent)
    return {
      content: [{ type: 'text', text: result.observation }],
      structuredContent: structuredRunResult(result, rt.limits.maxObservationBytes),
      ...(result.ok ? {} : { isError: true }),
    }
  } finally {
    off()
  }
}

/** The answer of a call the server stopped, its text led by why. */
function withNote(result: CallToolResult, note: string): CallToolResult {
  return { ...result, content: [{ type: 'text', text: note }, ...result.content] }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** MCP requires `inputSchema.type === "object"`. */
function objectSchema(schema: JsonSchema): Tool['inputSchema'] {
  return { ...schema, type: 'object' } as Tool['inputSchema']
}

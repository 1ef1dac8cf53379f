/**
 * MCP import: connect every configured server and offer their tools as ordinary codeact ToolDefinitions
 * (raw JSON Schema in, `tools/call` out), so they take the same validation, hooks and declarations as any
 * tool. Servers start in parallel; one that fails is reported in `failures` and the others carry on.
 */
import type { AnyToolDefinition, JsonValue, ToolAnnotations } from '../../vocabulary/types.js'
import type { McpServersConfig } from './config.js'
import { McpConnection, type ConnectionOptions, type McpStartFailure } from './connection.js'
import { assignNames } from './naming.js'

export interface McpToolsChange {
  /** Every MCP tool as it is now (register them all: registering replaces by name). */
  tools: AnyToolDefinition[]
  /** Names that no longer exist (unregister these). */
  removed: string[]
}

export interface McpServerStatus {
  name: string
  target: string
  status: 'connected' | 'stopped' | 'failed'
  /** codeact name -> original tool name. */
  tools: Record<string, string>
}

export interface McpImport {
  /** The current tool definitions of every connected server. */
  tools(): AnyToolDefinition[]
  readonly failures: readonly McpStartFailure[]
  servers(): McpServerStatus[]
  /** Called after a server re-listed its tools (`notifications/tools/list_changed`). */
  onToolsChanged(listener: (change: McpToolsChange) => void): () => void
  close(): Promise<void>
}

export interface ConnectMcpOptions extends ConnectionOptions {
  /** Names of other tools the MCP tools must not shadow (re-read on every change). */
  taken?: () => Iterable<string>
}

export async function connectMcpServers(configs: McpServersConfig, options: ConnectMcpOptions = {}): Promise<McpImport> {
  const opened = await Promise.all(Object.entries(configs).map(([name, config]) => McpConnection.open(name, config, options)))
  const connections = opened.filter((c): c is McpConnection => c instanceof McpConnection)
  const failures = opened.filter((c): c is McpStartFailure => !(c instanceof McpConnection))
  const listeners = new Set<(change: McpToolsChange) => void>()
  let current = build(connections, options, new Set())

  for (const conn of connections) {
    conn.onToolsChanged(() => {
      const before = current
      current = build(connections, options, new Set(before.byName.keys()))
      const removed = [...before.byName.keys()].filter((n) => !current.byName.has(n))
      for (const l of listeners) l({ tools: current.tools, removed })
    })
  }

  return {
    tools: () => current.tools,
    failures,
    servers: () => [
      ...connections.map(
        (c): McpServerStatus => ({
          name: c.name,
          target: c.target,
          status: c.alive ? 'connected' : 'stopped',
          tools: Object.fromEntries([...current.byName].filter(([, ref]) => ref.conn === c).map(([n, ref]) => [n, ref.tool])),
        }),
      ),
      ...failures.map((f): McpServerStatus => ({ name: f.server, target: f.target, status: 'failed', tools: {} })),
    ],
    onToolsChanged: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: async () => {
      await Promise.all(connections.map((c) => c.close()))
    },
  }
}

interface Built {
  tools: AnyToolDefinition[]
  byName: Map<string, { conn: McpConnection; tool: string }>
}

/** `ours`: the names MCP tools had until now, which `taken` (read from the runtime) may include. */
function build(connections: readonly McpConnection[], options: ConnectMcpOptions, ours: ReadonlySet<string>): Built {
  const refs = connections.flatMap((conn) => conn.tools.map((tool) => ({ conn, tool })))
  const taken = new Set([...(options.taken?.() ?? [])].filter((n) => !ours.has(n)))
  const names = assignNames(
    refs.map((r) => ({ server: r.conn.name, tool: r.tool.name })),
    taken,
  )
  const byName = new Map<string, { conn: McpConnection; tool: string }>()
  const tools = refs.map(({ conn, tool }, i): AnyToolDefinition => {
    const name = names[i]!
    byName.set(name, { conn, tool: tool.name })
    const description = tool.description?.trim() || tool.title || `Tool "${tool.name}" of the MCP server "${conn.name}".`
    return {
      name,
      description,
      parameters: tool.inputSchema as Record<string, unknown>,
      ...(tool.outputSchema ? { output: tool.outputSchema as Record<string, unknown> } : {}),
      ...(conn.config.timeoutMs ? { timeoutMs: conn.config.timeoutMs } : {}),
      // Passed through, so an export with --expose-tools shows hosts what the server said.
      ...(tool.annotations ? { annotations: pickAnnotations(tool.annotations) } : {}),
      execute: (args: JsonValue, ctx) => conn.call(tool.name, args, ctx.signal),
    }
  })
  return { tools, byName }
}

function pickAnnotations(a: Record<string, unknown>): ToolAnnotations {
  const out: ToolAnnotations = {}
  if (typeof a.title === 'string') out.title = a.title
  for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (typeof a[k] === 'boolean') out[k] = a[k]
  return out
}

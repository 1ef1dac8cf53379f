/**
 * Wires an MCP import into a runtime: registers the servers' tools and keeps them in step with
 * `notifications/tools/list_changed` (unregister what vanished, register the rest; the SDK follows).
 */
import type { Runtime } from '../runtime/create-runtime.js'
import type { McpServersConfig } from '../sdk/mcp/config.js'
import { connectMcpServers, type ConnectMcpOptions, type McpImport } from '../sdk/mcp/import.js'

export async function attachMcp(rt: Runtime, configs: McpServersConfig, options: ConnectMcpOptions = {}): Promise<McpImport> {
  const mcp = await connectMcpServers(configs, { taken: () => rt.tools.names(), ...options })
  rt.tools.register(mcp.tools())
  mcp.onToolsChanged(({ tools, removed }) => {
    if (removed.length) rt.tools.unregister(removed)
    rt.tools.register(tools)
  })
  return mcp
}

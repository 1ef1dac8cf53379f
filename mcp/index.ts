/** MCP both ways: import servers' tools into a runtime, and export a runtime as an MCP server. */
export {
  parseServersConfig,
  describeTarget,
  type McpServerConfig,
  type McpServersConfig,
  type McpStdioConfig,
  type McpHttpConfig,
} from '../sdk/mcp/config.js'
export { assignNames, sanitize, type McpToolRef } from '../sdk/mcp/naming.js'
export { McpToolError, mapCallResult, errnoOf } from '../sdk/mcp/result.js'
export { MCP_UNAVAILABLE, type McpStartFailure } from '../sdk/mcp/connection.js'
export { connectMcpServers, type ConnectMcpOptions, type McpImport, type McpServerStatus, type McpToolsChange } from '../sdk/mcp/import.js'
export { attachMcp } from './attach.js'
export { createMcpExport, type McpExport, type McpExportOptions, type McpServerOptions } from './export.js'
export { serveStdio, serveHttp, DEFAULT_MAX_BODY_BYTES, type HttpOptions, type HttpServing } from './serve.js'
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from './http-sessions.js'
export { RUN_CODE_OUTPUT_SCHEMA, type StructuredRunResult } from './run-result.js'
export { DISCOVERY_LIMITS } from '../sdk/mcp/discovery.js'
export { sandboxCheck, READINESS_CHECK_TIMEOUT_MS, type ReadinessCheck } from './health.js'
export { createServerMetrics, type ServerMetrics, type GaugeSources } from './metrics.js'
export { DEFAULT_DRAIN_TIMEOUT_MS, type Drained } from './drain.js'

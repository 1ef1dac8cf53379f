/**
 * codeact's public API. Every name exported here is public: add with care, no wildcards.
 */
export { createRuntime } from './create-runtime.js'
export type { Runtime, RuntimeOptions } from './create-runtime.js'
export type { RunCodeOptions } from './run-code.js'
export { DEFAULT_LIMITS } from './limits.js'
export { defineTool } from './define-tool.js'
export type {
  AnyToolDefinition,
  CallOrigin,
  CallRecord,
  JsonSchema,
  JsonValue,
  Limits,
  LogEntry,
  PostExecuteHook,
  PreExecuteDecision,
  PreExecuteHook,
  RunError,
  RunErrorKind,
  RunEvent,
  RunResult,
  SchemaLike,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolError,
  ToolResult,
} from './types.js'
export type { Sandbox, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../sandbox/types.js'

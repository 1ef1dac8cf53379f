/**
 * codeact's public API. Every name exported here is public: add with care, no wildcards.
 */
export { createRuntime } from './create-runtime.js'
export { DependencyError } from '../sandbox/package-manager.js'
export type { Runtime, RuntimeOptions } from './create-runtime.js'
export type { RunCodeOptions } from './run-code.js'
export type { Session, SessionOptions } from './session.js'
export { storeReady } from './store/types.js'
export type { Readiness, SessionStore, StoreError, StoreResult, StoreVersion, Turn } from './store/types.js'
export { PostgresStore } from './store/postgres/postgres-store.js'
export type { PostgresStoreOptions } from './store/postgres/postgres-store.js'
export { DEFAULT_LIMITS } from './limits.js'
export { defineTool } from '../vocabulary/define-tool.js'
export { replayObservations } from './replay.js'
export type { ReplayedObservation } from './replay.js'
export { replayReact } from './react/replay.js'
export type { ReplayedExchange } from './react/replay.js'
export type { ExecuteTextOptions, ExecuteTextResult, ReactCall } from './react/execute.js'
export type { ReactFormat } from './react/parse.js'
export type { ReactPromptOptions } from './react/prompt.js'
export type { ProgramOutput } from './ptc/program.js'
export { EventLog, parseJSONL } from './event-log.js'
export { checkLog } from './log-signing.js'
export { traceRuns } from './otel-spans.js'
export { watchRuns } from './run-watch.js'
export type { CallEnded, CallStarted, EventSource, RunEnded, RunStarted, RunWatcher } from './run-watch.js'
export type { LogCheck } from './log-signing.js'
export type {
  AnthropicToolResult,
  AnthropicToolUse,
  CallToolOptions,
  CallToolResult,
  ExecuteToolCallsOptions,
  LangChainToolCall,
  LangChainToolMessage,
  NativeToolCall,
  OpenAICustomToolCall,
  OpenAIFunctionToolCall,
  OpenAIToolCall,
  OpenAIToolMessage,
  ResponsesCustomToolCall,
  ResponsesCustomToolCallOutput,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ToolAnswerFor,
  ToolAnswers,
} from './native.js'
export { isStrictCompatible, toAnthropicTools, toOpenAIResponsesTools, toOpenAITools } from '../sdk/adapters.js'
export type {
  AnthropicTool,
  ObjectJsonSchema,
  OpenAICustomTool,
  OpenAIFunctionTool,
  OpenAIResponsesCustomTool,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesTool,
  OpenAITool,
  OpenAIToolsOptions,
} from '../sdk/adapters.js'
export { RUN_CODE_PARAMETERS } from '../sdk/run-code-tool.js'
export type { FunctionToolDefinition, RunCodeParameters, RunCodeToolDefinition } from '../sdk/run-code-tool.js'
export type { StandardToolSchema } from '../sdk/standard-schema.js'
export { createWorkspace } from '../sandbox/workspace/index.js'
// MCP (import and export) lives at the `codeact/mcp` subpath, so the root import never loads the MCP SDK.
export type { WorkspaceOptions } from '../sandbox/workspace/index.js'
export type { ApprovalPolicy } from './approval.js'
export type {
  AnyToolDefinition,
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalHandler,
  ApprovalRequest,
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
  RunSessionMark,
  SchemaLike,
  SessionLimits,
  ToolCall,
  ToolAllowedCaller,
  ToolAnnotations,
  ToolCaller,
  ToolContext,
  ToolDefinition,
  ToolError,
  ToolResult,
} from '../vocabulary/types.js'
export type { Sandbox, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../sandbox/types.js'

/**
 * createRuntime: one registry, one set of hooks, one event log and one sandbox, shared by programs
 * (`runCode`) and native function calls (`executeToolCalls`), where `run_code` is one more tool.
 */
import { renderDeclarations } from '../sdk/declarations.js'
import { RUN_CODE_PARAMETERS, runCodeDescription, type FunctionToolDefinition } from '../sdk/run-code-tool.js'
import { createIsolateSandbox, type IsolateSandboxOptions } from '../sandbox/isolate/index.js'
import type { Sandbox } from '../sandbox/types.js'
import { createWorkspace, type WorkspaceOptions } from '../sandbox/workspace/index.js'
import type { McpServersConfig } from '../sdk/mcp/config.js'
import type { McpImport } from '../sdk/mcp/import.js'
import { Approvals, policyHook, type ApprovalPolicy } from './approval.js'
import type { DispatchEnv } from './dispatch.js'
import { EventLog, type EventListener } from './event-log.js'
import { Hooks } from './hooks.js'
import { resolveLimits } from './limits.js'
import {
  RUN_CODE,
  executeToolCalls,
  type AnthropicToolResult,
  type AnthropicToolUse,
  type ExecuteToolCallsOptions,
  type OpenAIToolCall,
  type OpenAIToolMessage,
  type ToolAnswers,
} from './native.js'
import { ToolRegistry } from './registry.js'
import { runCode, type RunCodeDeps, type RunCodeOptions } from './run-code.js'
import { createTypecheck, type TypecheckMode } from './typecheck.js'
import type { AnyToolDefinition, ApprovalHandler, ApprovalRequest, HookMap, HookName, Limits, RunResult, ToolCall, ToolError } from '../vocabulary/types.js'

export interface RuntimeOptions {
  /** Tools as an array or a record of definitions. */
  tools?: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>
  limits?: Partial<Limits>
  /** `isolate` (default, embedded), `docker`, or a Sandbox you built. */
  sandbox?: 'isolate' | 'docker' | Sandbox
  /** Options of the isolate backend (what shares a process, how many processes …) when `sandbox: 'isolate'`. */
  isolate?: IsolateSandboxOptions
  /** Options of the Docker backend (image, pool size, engines …) when `sandbox: 'docker'`. */
  docker?: Record<string, unknown>
  /** Built-in workspace tools (read_file, write_file, edit_file, bash …) confined to this folder. */
  workspace?: WorkspaceOptions
  /** Type-check programs against the SDK before running them. Default `error`. */
  typecheck?: TypecheckMode
  /**
   * `both` (default): the model may call any tool natively, or write a program with `run_code`.
   * `code`: only `run_code` is callable natively; a direct call of another tool is refused with a
   * message that routes the model back to `run_code`.
   */
  mode?: 'both' | 'code'
  /** Per-call deadline for tools without their own `timeoutMs` (default 120 s). */
  toolTimeoutMs?: number
  /** Also write the event log to this JSONL file as it grows (everything; memory keeps the newest). */
  logFile?: string
  /** Events kept in memory (`rt.log`); older ones are dropped once no run needs them. Default 10,000. */
  logRetention?: number
  /**
   * MCP servers whose tools join the registry as `NAME__tool`: `{ command, args?, env?, cwd? }` (stdio) or
   * `{ url }` (streamable HTTP). A server that fails to start is listed in `rt.mcp.failures`; the others serve.
   */
  mcp?: McpServersConfig
  /**
   * Ask before these tools run (`['bash', 'remove', 'write_file']`), or before the calls a predicate picks
   * (`true` or the question's text). Asked after the workspace policy, so a refused call is never asked.
   */
  approve?: ApprovalPolicy
  /** Answers approval requests (from `approve` or a hook's `{ ask }`) unless a front door answers for the run. */
  onApproval?: ApprovalHandler
  /** How long a question waits for its answer before it counts as a no (default 5 min). */
  approvalTimeoutMs?: number
}

export interface Runtime {
  /** Runs one program. Never throws for anything the program does: every outcome is a RunResult. */
  runCode(code: string, options?: RunCodeOptions): Promise<RunResult>
  /** Executes the tool calls of one assistant message; answers come back in the model's order. */
  executeToolCalls(calls: readonly OpenAIToolCall[], options?: ExecuteToolCallsOptions): Promise<ToolAnswers<OpenAIToolMessage>>
  executeToolCalls(calls: readonly AnthropicToolUse[], options?: ExecuteToolCallsOptions): Promise<ToolAnswers<AnthropicToolResult>>
  /** The function-calling definition of `run_code`, with the SDK in its description. */
  runCodeTool(): FunctionToolDefinition
  readonly sdk: { declarations(): string }
  readonly hooks: { on<K extends HookName>(name: K, hook: HookMap[K]): () => void }
  readonly tools: {
    register(tools: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>): void
    unregister(names: readonly string[]): void
    /** Tools a program can call. */
    names(): string[]
    /** Every tool, for function-calling requests (`run_code` included; only `run_code` in code mode). */
    definitions(): FunctionToolDefinition[]
  }
  /** The runtime's append-only event log (both paths). */
  readonly log: EventLog
  /** Live events as they happen. Returns an unsubscribe function. */
  on(type: 'event', listener: EventListener): () => void
  readonly limits: Limits
  readonly sandbox: Sandbox
  /** The imported MCP servers (status, start failures), when `mcp` was given. */
  readonly mcp: McpImport | undefined
  /** Says yes to a call waiting for approval; false if `callId` is not waiting. */
  approve(callId: string): boolean
  /** Says no (the call fails with EACCES, "not approved: REASON"); false if `callId` is not waiting. */
  deny(callId: string, reason?: string): boolean
  /** The questions waiting for an answer now. */
  pendingApprovals(): ApprovalRequest[]
  close(): Promise<void>
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const limits = resolveLimits(options.limits)
  const mode = options.mode ?? 'both'
  const registry = new ToolRegistry()
  const hooks = new Hooks()
  const log = new EventLog(options.logRetention !== undefined ? { maxRetained: options.logRetention } : {})
  if (options.logFile) log.writeTo(options.logFile)
  const workspace = options.workspace ? createWorkspace(options.workspace) : undefined
  if (workspace) {
    registry.register(workspace.tools)
    hooks.on('pre-execute', workspace.policy)
  }
  if (options.approve) hooks.on('pre-execute', policyHook(options.approve))
  registry.register(toList(options.tools))
  // Loaded only when asked for, like Docker; list_changed re-registers (declarations follow the registry).
  const mcp =
    options.mcp && Object.keys(options.mcp).length
      ? await (await import('../sdk/mcp/import.js')).connectMcpServers(options.mcp, { taken: () => registry.names(), defaultTimeoutMs: options.toolTimeoutMs ?? 120_000 })
      : undefined
  if (mcp) {
    registry.register(mcp.tools())
    mcp.onToolsChanged(({ tools, removed }) => {
      if (removed.length) registry.unregister(removed)
      registry.register(tools)
    })
  }
  const sandbox = await chooseSandbox(options, workspace?.config)
  const env: DispatchEnv = {
    registry,
    hooks,
    log,
    services: (runId) => sandbox.services?.(runId) ?? {},
    toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
    gate: (call) => gate(call, mode, registry),
    approvals: new Approvals({
      log,
      ...(options.onApproval ? { handler: options.onApproval } : {}),
      ...(options.approvalTimeoutMs !== undefined ? { timeoutMs: options.approvalTimeoutMs } : {}),
    }),
  }

  let declarations: string | undefined
  const sdkText = () => (declarations ??= renderDeclarations(registry.definitions()))
  const typecheck = createTypecheck(options.typecheck ?? 'error', sdkText)
  registry.onChange(() => {
    declarations = undefined
    typecheck?.refresh()
  })
  const deps: RunCodeDeps = { env, sandbox, limits, ...(typecheck ? { typecheck } : {}) }
  registry.register(
    [
      {
        name: RUN_CODE,
        description: 'Run a TypeScript program against the tools.',
        parameters: RUN_CODE_PARAMETERS,
        exclusive: true,
        timeoutMs: limits.deadlineMs + 10_000,
        execute: async (args: { code: string }, ctx) => {
          const result = await runCode(deps, args.code, { parentId: ctx.callId, signal: ctx.signal })
          return { ok: result.ok, observation: result.observation }
        },
      },
    ],
    { nativeOnly: true },
  )
  // Warm the sandbox and the type checker in the background; failures surface on the first run.
  void sandbox.start()
  void typecheck?.warm()
  let closed = false
  const assertOpen = () => {
    if (closed) throw new Error('codeact: the runtime is closed')
  }

  const runtime: Runtime = {
    runCode: (code, runOptions) => {
      assertOpen()
      return runCode(deps, code, runOptions)
    },
    executeToolCalls: ((calls: readonly (OpenAIToolCall | AnthropicToolUse)[], o?: ExecuteToolCallsOptions) => {
      assertOpen()
      return executeToolCalls(env, limits.maxParallelToolCalls, calls, o)
    }) as Runtime['executeToolCalls'],
    runCodeTool: () => ({ name: RUN_CODE, description: runCodeDescription(sdkText(), limits), parameters: RUN_CODE_PARAMETERS }),
    sdk: { declarations: sdkText },
    hooks: { on: (name, hook) => hooks.on(name, hook) },
    tools: {
      register: (tools) => registry.register(toList(tools)),
      unregister: (names) => registry.unregister(names),
      names: () => registry.programNames(),
      definitions: () => {
        const all = registry.definitions().map((d) => ({ name: d.name, description: d.description, parameters: registry.get(d.name)!.parameters }))
        const runCodeDef = runtime.runCodeTool()
        return mode === 'code' ? [runCodeDef] : [...all, runCodeDef]
      },
    },
    log,
    on: (_type, listener) => log.subscribe(listener),
    limits,
    sandbox,
    mcp,
    approve: (callId) => env.approvals!.answer(callId, true),
    deny: (callId, reason) => env.approvals!.answer(callId, false, reason),
    pendingApprovals: () => env.approvals!.pending(),
    close: async () => {
      closed = true
      await mcp?.close()
      await sandbox.close()
      log.close()
    },
  }
  return runtime
}

/** Code mode refuses direct calls of other tools; programs never call `run_code` (no recursion). */
function gate(call: ToolCall, mode: 'both' | 'code', registry: ToolRegistry): ToolError | undefined {
  if (call.origin === 'code' && call.name === RUN_CODE) {
    return { code: 'ENOSYS', message: 'run_code cannot be called from inside a program; call the tools directly' }
  }
  if (call.origin === 'native' && mode === 'code' && call.name !== RUN_CODE) {
    const known = registry.programNames().includes(call.name)
    return {
      code: 'ENOSYS',
      message: known
        ? `only \`run_code\` is callable directly; call \`tools.${call.name}(…)\` from inside a run_code program instead`
        : `unknown tool "${call.name}"; only \`run_code\` is callable directly`,
    }
  }
  return undefined
}

async function chooseSandbox(options: RuntimeOptions, workspace: { root: string; readOnly: string[]; network: boolean } | undefined): Promise<Sandbox> {
  if (typeof options.sandbox === 'object') return options.sandbox
  if (options.sandbox === 'docker') {
    // Loaded only when asked for: the embedded default never pulls in the Docker client.
    const { createDockerSandbox } = await import('../sandbox/docker/index.js')
    // The workspace's network switch governs the container too (its `bash` runs there), unless the Docker
    // options say otherwise.
    const fromWorkspace = workspace ? { workspace: { root: workspace.root, readOnly: workspace.readOnly }, network: workspace.network } : {}
    return createDockerSandbox({ ...fromWorkspace, ...options.docker, ...(workspace ? { workspace: fromWorkspace.workspace } : {}) })
  }
  return createIsolateSandbox(options.isolate)
}

function toList(tools: RuntimeOptions['tools']): AnyToolDefinition[] {
  if (!tools) return []
  return Array.isArray(tools) ? [...tools] : Object.values(tools)
}

/**
 * createRuntime: one registry, one set of hooks, one event log and one sandbox, shared by programs
 * (`runCode`) and native function calls (`executeToolCalls`), where `run_code` is one more tool.
 */
import { renderDeclarations } from '../sdk/declarations.js'
import { holdChecker } from '../program/typecheck-pool.js'
import { RUN_CODE_PARAMETERS, runCodeDescription, type FunctionToolDefinition, type RunCodeToolDefinition } from '../sdk/run-code-tool.js'
import type { IsolateSandboxOptions } from '../sandbox/isolate/index.js'
import type { Sandbox } from '../sandbox/types.js'
import type { WorkspaceOptions } from '../sandbox/workspace/index.js'
import type { Recovered } from '../sandbox/workspace/staging/stage-dir.js'
import { WORKSPACE_SERVICE, type WorkspaceOps } from '../sandbox/workspace/ops.js'
import type { McpServersConfig } from '../sdk/mcp/config.js'
import type { McpImport } from '../sdk/mcp/import.js'
import { Approvals, policyHook, type ApprovalPolicy } from './approval.js'
import type { DispatchEnv } from './dispatch.js'
import { EventLog, type EventListener } from './event-log.js'
import { Hooks } from './hooks.js'
import { checkedCapabilities, chooseSandbox } from './choose-sandbox.js'
import { resolveLimits } from './limits.js'
import { openState } from './run-state.js'
import { resolveSessionLimits, Sessions } from './sessions.js'
import type { SessionStore } from './store/types.js'
import type { StoreSpec } from './store/open-store.js'
import {
  RUN_CODE,
  callTool,
  executeToolCalls,
  type CallToolOptions,
  type CallToolResult,
  type ExecuteToolCallsOptions,
  type NativeToolCall,
  type ToolAnswerFor,
  type ToolAnswers,
} from './native.js'
import { functionDefinition } from './tool-definitions.js'
import { ToolRegistry } from './registry.js'
import { noteHostActivity } from './host-quiet.js'
import { startMinimal, type MinimalModeOptions } from './minimal-mode.js'
import { protocolMethods, type ProtocolMethods } from './protocols.js'
import { runCode, type RunCodeOptions } from './run-code.js'
import type { RunCodeDeps } from './run-inputs.js'
import { openWorkspace, refuseUnstagedIn, workspaceRunDeps } from './runtime-workspace.js'
import type { Session, SessionOptions } from './session.js'
import { createProgramPrep, createTypecheck, type TypecheckMode } from './typecheck.js'
import type {
  AnyToolDefinition,
  ApprovalHandler,
  ApprovalRequest,
  ChangeMode,
  HookMap,
  HookName,
  Limits,
  RunResult,
  SessionLimits,
  ToolCall,
  ToolError,
} from '../vocabulary/types.js'

export interface RuntimeOptions extends MinimalModeOptions {
  /** Tools as an array or a record of definitions. */
  tools?: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>
  limits?: Partial<Limits>
  /** `isolate` (default, embedded), `docker`, or a Sandbox you built. */
  sandbox?: 'isolate' | 'docker' | Sandbox
  /** Options of the isolate backend (what shares a process, how many processes …) when `sandbox: 'isolate'`. */
  isolate?: IsolateSandboxOptions
  /** Options of the Docker backend (image, pool size, engine …) when `sandbox: 'docker'`. */
  docker?: Record<string, unknown>
  /** Built-in workspace tools (read_file, write_file, edit_file, bash …) confined to this folder. */
  workspace?: WorkspaceOptions
  /** Type-check programs against the SDK before running them. Default `error`. */
  typecheck?: TypecheckMode
  /** How long one type check may take (in its own thread) before it is skipped with a note; default 5,000 ms. */
  typecheckBudgetMs?: number
  /**
   * `both` (default): the model may call any tool natively, or write a program with `run_code`.
   * `code`: only `run_code` is callable natively; a direct call of another tool is refused with a
   * message that routes the model back to `run_code`. `minimal`: a persistent bash and an editor only.
   */
  mode?: 'both' | 'code' | 'minimal'
  /** Per-call deadline for tools without their own `timeoutMs` (default 120 s). */
  toolTimeoutMs?: number
  /**
   * Also write the event log to this JSONL file as it grows (everything; memory keeps the newest). Each line
   * is signed with the key in the state folder, and sessions are restored from it only when every line checks.
   */
  logFile?: string
  /**
   * codeact's state folder: staging journals, the key that signs journals and logs. Default
   * `$CODEACT_STATE_DIR`, else `$XDG_STATE_HOME/codeact`, else `~/.local/state/codeact`. Never inside the
   * workspace (nor the workspace inside it): createRuntime refuses that.
   */
  stateDir?: string
  /** Events kept in memory (`rt.log`); older ones are dropped once no run needs them. Default 10,000. */
  logRetention?: number
  /**
   * MCP servers whose tools join the registry as `NAME__tool`: `{ command, args?, env?, cwd? }` (stdio) or
   * `{ url }` (streamable HTTP). A server that fails to start is listed in `rt.mcp.failures`; the others serve.
   */
  mcp?: McpServersConfig
  /**
   * How runs' workspace changes land by default: `apply` (directly), `atomic` (all at once when the run
   * ends ok, nothing otherwise) or `dry-run` (never; RunResult.changes carries the diffs). A run may
   * choose otherwise (`runCode(code, { changes })`). In `atomic`/`dry-run`, native calls of the tools
   * that change the workspace are refused (EPERM): changes go through programs, where they are staged.
   */
  changes?: ChangeMode
  /**
   * Ask before these tools run (`['bash', 'remove', 'write_file']`), or before the calls a predicate picks
   * (`true` or the question's text). Asked after the workspace policy, so a refused call is never asked.
   */
  approve?: ApprovalPolicy
  /** Answers approval requests (from `approve` or a hook's `{ ask }`) unless a front door answers for the run. */
  onApproval?: ApprovalHandler
  /** How long a question waits for its answer before it counts as a no (default 5 min). */
  approvalTimeoutMs?: number
  /**
   * Limits of the runtime's sessions (`rt.session()`): live realms at once (`max`, default 64; past it the
   * least recently used idle realm is freed), `idleMs` (default 10 min; an idle realm is freed) and each
   * realm's `memoryMb` (default `limits.memoryMb`). A freed realm's session restores by replay on its next run.
   */
  sessions?: Partial<SessionLimits>
  /** Where sessions live: `embedded` (default), `postgres://…` or `{ url, …PostgresStoreOptions }` (shared by replicas) or a store; docs/scale-out.md. */
  store?: StoreSpec
  /**
   * Once no run has started or ended in this process for a few seconds after runs, ask V8 for one full
   * collection, so it can give back the memory a burst of runs grew (runtime/host-quiet.ts); while asking,
   * `process.emitWarning` is swapped for a moment to hold back Node's experimental-API warning. Off by
   * default: the process is the embedder's. codeact's own processes (CLI, MCP server, REPL) turn it on.
   */
  collectWhenIdle?: boolean
}

/** Besides these, `executeText`, `reactPrompt` and `runPtcProgram`: see protocols.ts. */
export interface Runtime extends ProtocolMethods {
  /** Runs one program. Never throws for anything the program does: every outcome is a RunResult. */
  runCode(code: string, options?: RunCodeOptions): Promise<RunResult>
  /**
   * Executes the tool calls of one assistant message, as the SDK typed them: OpenAI Chat `tool_calls`,
   * Responses `output` items, Anthropic `content` blocks, LangChain `tool_calls` (items that are not calls
   * are passed over; `undefined` is an empty batch). Answers come back in the model's order, each in the
   * shape its SDK expects (`role: "tool"` message, `function_call_output` item, `tool_result` block).
   */
  executeToolCalls<C extends NativeToolCall>(
    calls: readonly C[] | null | undefined,
    options?: ExecuteToolCallsOptions,
  ): Promise<ToolAnswers<ToolAnswerFor<C>>>
  /**
   * One call, as a model's native call, through the same validation, hooks, scheduler and log; answers the
   * structured result (`ok`, `value` or `code`/`message`, `denied`) and the `content` a model would read.
   */
  callTool(name: string, args: unknown, options?: CallToolOptions): Promise<CallToolResult>
  /** The function-calling definition of `run_code`, with the SDK in its description. */
  runCodeTool(): RunCodeToolDefinition
  readonly sdk: { declarations(): string }
  readonly hooks: { on<K extends HookName>(name: K, hook: HookMap[K]): () => void }
  readonly tools: {
    register(tools: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>): void
    unregister(names: readonly string[]): void
    /** Tools a program can call. */
    names(): string[]
    /** Every tool, for function-calling requests (`run_code` included; only `run_code` in code mode). */
    definitions(): FunctionToolDefinition[]
    /** The registered definition of a program-callable tool (its `output`, `annotations` …), if any. */
    get(name: string): AnyToolDefinition | undefined
    /** Called after every register/unregister (the MCP server sends `tools/list_changed`). Returns an unsubscribe function. */
    onChange(listener: () => void): () => void
  }
  /**
   * A session: runs that share one persistent realm (REPL semantics). `{ id }` resumes a known session
   * (live, or restored by replay from this runtime's history or its `logFile`).
   */
  session(options?: SessionOptions): Session
  readonly store: SessionStore
  /** The runtime's append-only event log (both paths). */
  readonly log: EventLog
  /** Live events as they happen. Returns an unsubscribe function. */
  on(type: 'event', listener: EventListener): () => void
  readonly limits: Limits
  readonly sandbox: Sandbox
  /** The imported MCP servers (status, start failures), when `mcp` was given. */
  readonly mcp: McpImport | undefined
  /** Staged applies a killed host left half done, finished at start-up (and stale stages removed). */
  readonly recovered: readonly Recovered[]
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
  const registry = new ToolRegistry()
  const hooks = new Hooks()
  const log = new EventLog(options.logRetention !== undefined ? { maxRetained: options.logRetention } : {})
  const sessionLimits = resolveSessionLimits(options.sessions, limits)
  // The state folder checked against the workspace; sessions an earlier runtime left in the log, read
  // (and checked) before the file is started afresh.
  const { state, priorSessions } = openState(options, log)
  const changeMode: ChangeMode = options.changes ?? 'apply'
  if (!['apply', 'atomic', 'dry-run'].includes(changeMode))
    throw new TypeError(`codeact: changes must be apply, atomic or dry-run, got ${String(changeMode)}`)
  // Loaded only with a workspace: its tools' schemas are zod's, and staging, recovery and the changes'
  // diffing are modules a runtime without one never runs.
  const opened = await openWorkspace(options.workspace, changeMode, { registry, hooks }, options.mode !== 'minimal')
  // Minimal mode: its persistent bash and editor take the place of the workspace tools and run_code.
  const minimal =
    options.mode === 'minimal' ? await startMinimal(options, opened?.workspace, () => sessions.batchScope.getStore()) : undefined
  if (minimal) {
    registry.register(minimal.tools)
    hooks.on('pre-execute', minimal.policy)
  }
  if (options.approve) hooks.on('pre-execute', policyHook(options.approve))
  registry.register(toList(options.tools))
  // A host killed mid-apply left a journal: finish it before anything reads the tree.
  const recovered = opened ? await opened.modules.recoverStaging(state, opened.workspace.root, opened.workspace.config.readOnly) : []
  if (opened) refuseUnstagedIn(hooks, changeMode)
  const mcp = await importMcp(options, registry)
  // Minimal mode runs no programs: no warm runner containers beside its shells' own.
  const sandboxChoice = minimal && options.sandbox === 'docker' ? { ...options, docker: { poolSize: 0, ...options.docker } } : options
  const sandbox = checkedCapabilities(await chooseSandbox(sandboxChoice, opened?.workspace.config))
  const runOps = new Map<string, WorkspaceOps>()
  const env = dispatchEnv(options, { registry, hooks, log, sandbox, runOps })
  const checks = programChecks(options, registry, sandbox)
  const deps: RunCodeDeps = {
    env,
    sandbox,
    limits,
    programs: checks.programs,
    ...(checks.typecheck ? { typecheck: checks.typecheck } : {}),
    ...(options.collectWhenIdle === true ? { noteActivity: noteHostActivity } : {}),
  }
  if (opened && options.workspace)
    deps.workspace = workspaceRunDeps(opened, { workspace: options.workspace, state, changeMode, runOps }, sandbox)
  const sessions = new Sessions({
    store: options.store,
    limits: sessionLimits,
    log,
    sandbox,
    runIn: (code, o, session) => runCode(deps, code, o, session),
    ...(priorSessions ? { prior: priorSessions } : {}),
  })
  const runProgram = (code: string, o: RunCodeOptions = {}) =>
    o.session !== undefined ? sessions.run(o.session, code, o) : runCode(deps, code, o)
  registry.register([runCodeTool(limits, sessions, runProgram)], { nativeOnly: true })
  // Warm the sandbox and the type checker in the background; failures surface on the first run.
  void sandbox.start()
  void checks.typecheck?.warm()
  const close = async () => {
    checks.release?.()
    await sessions.close()
    await minimal?.close()
    // Stage removals are only ever started by runs with a workspace (and without one the module is not loaded).
    if (opened) await opened.modules.settleStageRemovals()
    await mcp?.close()
    await sandbox.close()
    opened?.workspace.close()
    log.close()
  }
  return runtimeHandle({ options, limits, env, sessions, sandbox, mcp, recovered, sdkText: checks.sdkText, runProgram, close })
}

/** Loaded only when asked for, like Docker; list_changed re-registers (declarations follow the registry). */
async function importMcp(options: RuntimeOptions, registry: ToolRegistry): Promise<McpImport | undefined> {
  if (!options.mcp || Object.keys(options.mcp).length === 0) return undefined
  const { connectMcpServers } = await import('../sdk/mcp/import.js')
  const mcp = await connectMcpServers(options.mcp, {
    taken: () => registry.names(),
    defaultTimeoutMs: options.toolTimeoutMs ?? 120_000,
  })
  registry.register(mcp.tools())
  mcp.onToolsChanged(({ tools, removed }) => {
    if (removed.length) registry.unregister(removed)
    registry.register(tools)
  })
  return mcp
}

function dispatchEnv(
  options: RuntimeOptions,
  parts: { registry: ToolRegistry; hooks: Hooks; log: EventLog; sandbox: Sandbox; runOps: Map<string, WorkspaceOps> },
): DispatchEnv {
  const { registry, hooks, log, sandbox, runOps } = parts
  const mode = options.mode ?? 'both'
  return {
    registry,
    hooks,
    log,
    services: (runId) => {
      const services = sandbox.services?.(runId) ?? {}
      const own = runId === undefined ? undefined : runOps.get(runId)
      return own ? { ...services, [WORKSPACE_SERVICE]: own } : services
    },
    toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
    gate: (call) => gate(call, mode, registry),
    approvals: new Approvals({
      log,
      ...(options.onApproval ? { handler: options.onApproval } : {}),
      ...(options.approvalTimeoutMs !== undefined ? { timeoutMs: options.approvalTimeoutMs } : {}),
    }),
  }
}

/** The SDK's declarations and the programs' preparation (with the check on, the checker's). */
function programChecks(options: RuntimeOptions, registry: ToolRegistry, sandbox: Sandbox) {
  let declarations: string | undefined
  const sdkText = () => (declarations ??= renderDeclarations(registry.definitions()))
  // A program that may import Node's modules is checked against Node's types.
  const typecheck = createTypecheck(options.typecheck ?? 'error', sdkText, {
    ...(options.typecheckBudgetMs !== undefined ? { budgetMs: options.typecheckBudgetMs } : {}),
    ...(sandbox.capabilities.nodeModules ? { nodeTypes: true } : {}),
  })
  // While this runtime checks programs, the process keeps one checker thread past its idle time.
  const release = typecheck ? holdChecker() : undefined
  registry.onChange(() => {
    declarations = undefined
    typecheck?.refresh()
  })
  // With the check off, programs are still normalised and shape-checked in the checker's thread.
  const programs = typecheck ?? createProgramPrep(options.typecheckBudgetMs !== undefined ? { budgetMs: options.typecheckBudgetMs } : {})
  return { sdkText, typecheck, programs, release }
}

/** `run_code` as a native-only tool: a program run (in the batch's session, if any) answered by its observation. */
function runCodeTool(limits: Limits, sessions: Sessions, runProgram: (code: string, o?: RunCodeOptions) => Promise<RunResult>) {
  return {
    name: RUN_CODE,
    description: 'Run a TypeScript program against the tools.',
    parameters: RUN_CODE_PARAMETERS,
    exclusive: true,
    timeoutMs: limits.deadlineMs + 10_000,
    execute: async (args: { code: string }, ctx: { callId: string; signal: AbortSignal }) => {
      const session = sessions.batchScope.getStore()
      const result = await runProgram(args.code, {
        parentId: ctx.callId,
        signal: ctx.signal,
        ...(session !== undefined ? { session } : {}),
      })
      return { ok: result.ok, observation: result.observation }
    },
  }
}

interface HandleParts {
  options: RuntimeOptions
  limits: Limits
  env: DispatchEnv
  sessions: Sessions
  sandbox: Sandbox
  mcp: McpImport | undefined
  recovered: Recovered[]
  sdkText: () => string
  runProgram: (code: string, o?: RunCodeOptions) => Promise<RunResult>
  close: () => Promise<void>
}

/** The Runtime a caller holds: every entry point refuses once closed. */
function runtimeHandle(p: HandleParts): Runtime {
  const { env, sessions, limits } = p
  const { registry, hooks, log } = env
  const mode = p.options.mode ?? 'both'
  let closed = false
  const assertOpen = () => {
    if (closed) throw new Error('codeact: the runtime is closed')
  }
  const runtime: Runtime = {
    runCode: (code, runOptions) => {
      assertOpen()
      return p.runProgram(code, runOptions)
    },
    executeToolCalls: (calls, o) => {
      assertOpen()
      const batch = () => executeToolCalls(env, limits.maxParallelToolCalls, calls, o)
      return o?.session !== undefined ? sessions.batchScope.run(o.session, batch) : batch()
    },
    callTool: async (name, args, o) => {
      assertOpen()
      return callTool(env, name, args, o)
    },
    ...protocolMethods({ env, limits, mode, runProgram: p.runProgram, assertOpen }),
    runCodeTool: () =>
      Object.assign(functionDefinition(registry.get(RUN_CODE)!, runCodeDescription(p.sdkText(), limits)), {
        parameters: RUN_CODE_PARAMETERS,
      }),
    sdk: { declarations: p.sdkText },
    hooks: { on: (name, hook) => hooks.on(name, hook) },
    tools: toolsFacade(registry, mode, () => runtime.runCodeTool()),
    session: (o) => {
      assertOpen()
      return sessions.handle(o)
    },
    store: sessions.store,
    log,
    on: (_type, listener) => log.subscribe(listener),
    limits,
    sandbox: p.sandbox,
    mcp: p.mcp,
    recovered: p.recovered,
    approve: (callId) => env.approvals!.answer(callId, true),
    deny: (callId, reason) => env.approvals!.answer(callId, false, reason),
    pendingApprovals: () => env.approvals!.pending(),
    close: async () => {
      closed = true
      await p.close()
    },
  }
  return runtime
}

function toolsFacade(registry: ToolRegistry, mode: 'both' | 'code' | 'minimal', runCodeDef: () => RunCodeToolDefinition): Runtime['tools'] {
  return {
    register: (tools) => registry.register(toList(tools)),
    unregister: (names) => registry.unregister(names),
    names: () => registry.programNames(),
    definitions: () => {
      const all = registry.directNames().flatMap((n) => (n === RUN_CODE ? [] : [functionDefinition(registry.get(n)!)]))
      return mode === 'code' ? [runCodeDef()] : mode === 'minimal' ? all : [...all, runCodeDef()]
    },
    get: (name) => {
      const found = registry.get(name)
      return found && !found.nativeOnly ? found.definition : undefined
    },
    onChange: (listener) => registry.onChange(listener),
  }
}

/** Code mode refuses direct calls of other tools; programs never call `run_code` (no recursion). */
function gate(call: ToolCall, mode: 'both' | 'code' | 'minimal', registry: ToolRegistry): ToolError | undefined {
  if (mode === 'minimal' && call.name === RUN_CODE)
    return { code: 'ENOSYS', message: 'Minimal mode has no run_code; use the bash and editor tools' }
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

function toList(tools: RuntimeOptions['tools']): AnyToolDefinition[] {
  if (!tools) return []
  return Array.isArray(tools) ? [...tools] : Object.values(tools)
}

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
import { chooseSandbox } from './choose-sandbox.js'
import { resolveLimits } from './limits.js'
import { openState } from './run-state.js'
import { resolveSessionLimits, Sessions } from './sessions.js'
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
import { runCode, type RunCodeDeps, type RunCodeOptions } from './run-code.js'
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
  /** Options of the Docker backend (image, pool size, engines …) when `sandbox: 'docker'`. */
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
  /**
   * Once no run has started or ended in this process for a few seconds after runs, ask V8 for one full
   * collection, so it can give back the memory a burst of runs grew (runtime/host-quiet.ts); while asking,
   * `process.emitWarning` is swapped for a moment to hold back Node's experimental-API warning. Off by
   * default: the process is the embedder's. codeact's own processes (CLI, MCP server, REPL) turn it on.
   */
  collectWhenIdle?: boolean
}

export interface Runtime {
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
  const mode = options.mode ?? 'both'
  const registry = new ToolRegistry()
  const hooks = new Hooks()
  const log = new EventLog(options.logRetention !== undefined ? { maxRetained: options.logRetention } : {})
  const sessionLimits = resolveSessionLimits(options.sessions, limits)
  // The state folder checked against the workspace; sessions an earlier runtime left in the log, read
  // (and checked) before the file is started afresh.
  const { state, priorSessions } = openState(options, log)
  // Loaded only with a workspace: its tools' schemas are zod's (~0.8 MB of module to compile at start-up),
  // and staging, recovery and the changes' diffing are ~25 modules a runtime without one never runs (a
  // check-off host after 1,000 runs: VmRSS 88 → 85 MB).
  const workspaces = options.workspace ? await loadWorkspaceModules() : undefined
  const workspace = options.workspace && workspaces ? workspaces.createWorkspace(options.workspace) : undefined
  const minimal = mode === 'minimal' ? await startMinimal(options, workspace, () => sessions.batchScope.getStore()) : undefined
  if (minimal) {
    registry.register(minimal.tools)
    hooks.on('pre-execute', minimal.policy)
  } else if (workspace && workspaces) {
    registry.register(workspaces.withWorkspaceAnnotations(workspace.tools, workspace.config))
    hooks.on('pre-execute', workspace.policy)
  }
  if (options.approve) hooks.on('pre-execute', policyHook(options.approve))
  registry.register(toList(options.tools))
  const changeMode: ChangeMode = options.changes ?? 'apply'
  if (!['apply', 'atomic', 'dry-run'].includes(changeMode))
    throw new TypeError(`codeact: changes must be apply, atomic or dry-run, got ${String(changeMode)}`)
  if (changeMode !== 'apply' && !workspace) throw new TypeError('codeact: changes: "atomic" and "dry-run" need a workspace')
  // A host killed mid-apply left a journal: finish it before anything reads the tree.
  const recovered = workspace && workspaces ? await workspaces.recoverStaging(state, workspace.root, workspace.config.readOnly) : []
  const runOps = new Map<string, WorkspaceOps>()
  if (workspace && changeMode !== 'apply') hooks.on('pre-execute', (call) => refuseUnstaged(call, changeMode))
  // Loaded only when asked for, like Docker; list_changed re-registers (declarations follow the registry).
  const mcp =
    options.mcp && Object.keys(options.mcp).length
      ? await (await import('../sdk/mcp/import.js')).connectMcpServers(options.mcp, {
          taken: () => registry.names(),
          defaultTimeoutMs: options.toolTimeoutMs ?? 120_000,
        })
      : undefined
  if (mcp) {
    registry.register(mcp.tools())
    mcp.onToolsChanged(({ tools, removed }) => {
      if (removed.length) registry.unregister(removed)
      registry.register(tools)
    })
  }
  // Minimal mode runs no programs: no warm runner containers beside its shells' own.
  const sandboxChoice = minimal && options.sandbox === 'docker' ? { ...options, docker: { poolSize: 0, ...options.docker } } : options
  const sandbox = await chooseSandbox(sandboxChoice, workspace?.config)
  const env: DispatchEnv = {
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

  let declarations: string | undefined
  const sdkText = () => (declarations ??= renderDeclarations(registry.definitions()))
  // In a container the program has Node (`require`, `process`, `import('node:fs')`): its check knows Node's types.
  const typecheck = createTypecheck(options.typecheck ?? 'error', sdkText, {
    ...(options.typecheckBudgetMs !== undefined ? { budgetMs: options.typecheckBudgetMs } : {}),
    ...(sandbox.name === 'docker' ? { nodeTypes: true } : {}),
  })
  // While this runtime checks programs, the process keeps one checker thread past its idle time.
  const releaseChecker = typecheck ? holdChecker() : undefined
  registry.onChange(() => {
    declarations = undefined
    typecheck?.refresh()
  })
  // With the check off, programs are still normalised and shape-checked in the checker's thread.
  const programs = typecheck ?? createProgramPrep(options.typecheckBudgetMs !== undefined ? { budgetMs: options.typecheckBudgetMs } : {})
  const deps: RunCodeDeps = {
    env,
    sandbox,
    limits,
    programs,
    ...(typecheck ? { typecheck } : {}),
    ...(options.collectWhenIdle === true ? { noteActivity: noteHostActivity } : {}),
  }
  if (workspace && workspaces) {
    const hostOps = workspaces.createHostOps(workspace.config, options.workspace?.bwrapPath ?? 'bwrap')
    deps.workspace = {
      config: workspace.config,
      stateDir: state,
      mode: changeMode,
      runOps,
      baseOps: (runId) => {
        const svc = sandbox.services?.(runId)?.[WORKSPACE_SERVICE]
        return isOps(svc) ? svc : hostOps
      },
      stagedExec: workspaces.stagedExecFor(workspace.config, options.workspace?.bwrapPath ?? 'bwrap', sandbox.name),
      startRunChanges: workspaces.startRunChanges,
      // Docker: the program writes the mounted tree itself (node:fs), and a staged run is the backend's to mount.
      ...(sandbox.name === 'docker' ? { programWrites: true, hostOps } : {}),
      ...(sandbox.stageRun ? { stageRun: sandbox.stageRun.bind(sandbox) } : {}),
    }
  }
  const sessions = new Sessions({
    limits: sessionLimits,
    log,
    sandbox,
    runIn: (code, o, session) => runCode(deps, code, o, session),
    ...(priorSessions ? { prior: priorSessions } : {}),
  })
  const runProgram = (code: string, o: RunCodeOptions = {}) =>
    o.session !== undefined ? sessions.run(o.session, code, o) : runCode(deps, code, o)
  registry.register(
    [
      {
        name: RUN_CODE,
        description: 'Run a TypeScript program against the tools.',
        parameters: RUN_CODE_PARAMETERS,
        exclusive: true,
        timeoutMs: limits.deadlineMs + 10_000,
        execute: async (args: { code: string }, ctx) => {
          const session = sessions.batchScope.getStore()
          const result = await runProgram(args.code, {
            parentId: ctx.callId,
            signal: ctx.signal,
            ...(session !== undefined ? { session } : {}),
          })
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
      return runProgram(code, runOptions)
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
    runCodeTool: () =>
      Object.assign(functionDefinition(registry.get(RUN_CODE)!, runCodeDescription(sdkText(), limits)), {
        parameters: RUN_CODE_PARAMETERS,
      }),
    sdk: { declarations: sdkText },
    hooks: { on: (name, hook) => hooks.on(name, hook) },
    tools: {
      register: (tools) => registry.register(toList(tools)),
      unregister: (names) => registry.unregister(names),
      names: () => registry.programNames(),
      definitions: () => {
        const all = registry.programNames().map((n) => functionDefinition(registry.get(n)!))
        const runCodeDef = runtime.runCodeTool()
        return mode === 'code' ? [runCodeDef] : mode === 'minimal' ? all : [...all, runCodeDef]
      },
      get: (name) => {
        const found = registry.get(name)
        return found && !found.nativeOnly ? found.definition : undefined
      },
      onChange: (listener) => registry.onChange(listener),
    },
    session: (o) => {
      assertOpen()
      return sessions.handle(o)
    },
    log,
    on: (_type, listener) => log.subscribe(listener),
    limits,
    sandbox,
    mcp,
    recovered,
    approve: (callId) => env.approvals!.answer(callId, true),
    deny: (callId, reason) => env.approvals!.answer(callId, false, reason),
    pendingApprovals: () => env.approvals!.pending(),
    close: async () => {
      closed = true
      releaseChecker?.()
      await sessions.close()
      await minimal?.close()
      // Stage removals are only ever started by runs with a workspace (and without one the module is not loaded).
      if (workspaces) await workspaces.settleStageRemovals()
      await mcp?.close()
      await sandbox.close()
      workspace?.close()
      log.close()
    },
  }
  return runtime
}

const MUTATING = new Set(['write_file', 'edit_file', 'mkdir', 'remove', 'bash'])

/** In a staged runtime, a native call that would change the real tree is refused; programs are staged. */
function refuseUnstaged(call: Readonly<ToolCall>, mode: ChangeMode): { deny: ToolError } | undefined {
  if (call.origin !== 'native' || !MUTATING.has(call.name)) return undefined
  return {
    deny: {
      code: 'EPERM',
      message: `${call.name} cannot be called directly in a ${mode} runtime: its change would reach the real workspace unstaged; call it from a run_code program`,
    },
  }
}

function isOps(v: unknown): v is WorkspaceOps {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Record<string, unknown>).readFile === 'function' &&
    typeof (v as Record<string, unknown>).exec === 'function'
  )
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

/** Everything a runtime with a workspace uses of it, loaded together when it has one (see createRuntime). */
async function loadWorkspaceModules() {
  const [index, annotations, stageDir, exec, changes] = await Promise.all([
    import('../sandbox/workspace/index.js'),
    import('../sandbox/workspace/annotations.js'),
    import('../sandbox/workspace/staging/stage-dir.js'),
    import('../sandbox/workspace/staging/exec.js'),
    import('./changes/run-changes.js'),
  ])
  return {
    createWorkspace: index.createWorkspace,
    createHostOps: index.createHostOps,
    withWorkspaceAnnotations: annotations.withWorkspaceAnnotations,
    recoverStaging: stageDir.recoverStaging,
    stagedExecFor: exec.stagedExecFor,
    startRunChanges: changes.startRunChanges,
    settleStageRemovals: changes.settleStageRemovals,
  }
}

/**
 * createRuntime: one registry, one set of hooks, one event log, one sandbox — shared by programs
 * (`runCode`) and native function calls (`executeToolCalls`).
 */
import { renderDeclarations } from '../sdk/declarations.js'
import { createIsolateSandbox } from '../sandbox/isolate/index.js'
import type { Sandbox } from '../sandbox/types.js'
import type { DispatchEnv } from './dispatch.js'
import { EventLog, type EventListener } from './event-log.js'
import { Hooks } from './hooks.js'
import { resolveLimits } from './limits.js'
import { ToolRegistry } from './registry.js'
import { runCode, type RunCodeOptions } from './run-code.js'
import type { AnyToolDefinition, HookMap, HookName, Limits, RunResult } from './types.js'

export interface RuntimeOptions {
  /** Tools as an array or a record of definitions. */
  tools?: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>
  limits?: Partial<Limits>
  /** `isolate` (default, embedded) or a Sandbox you built. */
  sandbox?: 'isolate' | Sandbox
  /** Per-call deadline for tools without their own `timeoutMs` (default 120 s). */
  toolTimeoutMs?: number
  /** Also write the event log to this JSONL file as it grows. */
  logFile?: string
}

export interface Runtime {
  runCode(code: string, options?: RunCodeOptions): Promise<RunResult>
  readonly sdk: { declarations(): string }
  readonly hooks: { on<K extends HookName>(name: K, hook: HookMap[K]): () => void }
  readonly tools: {
    register(tools: readonly AnyToolDefinition[] | Record<string, AnyToolDefinition>): void
    unregister(names: readonly string[]): void
    names(): string[]
  }
  /** The runtime's append-only event log (both paths). */
  readonly log: EventLog
  /** Live events as they happen. Returns an unsubscribe function. */
  on(type: 'event', listener: EventListener): () => void
  readonly limits: Limits
  close(): Promise<void>
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const limits = resolveLimits(options.limits)
  const registry = new ToolRegistry()
  registry.register(toList(options.tools))
  const hooks = new Hooks()
  const log = new EventLog()
  if (options.logFile) log.writeTo(options.logFile)
  const sandbox: Sandbox = typeof options.sandbox === 'object' ? options.sandbox : createIsolateSandbox()
  const env: DispatchEnv = {
    registry,
    hooks,
    log,
    services: (runId) => sandbox.services?.(runId) ?? {},
    toolTimeoutMs: options.toolTimeoutMs ?? 120_000,
  }
  // Warm the sandbox in the background; a failure shows up as sandbox_unavailable on the first run.
  void sandbox.start()
  let declarations: string | undefined
  registry.onChange(() => (declarations = undefined))
  let closed = false

  return {
    runCode: (code, runOptions) => {
      if (closed) throw new Error('codeact: the runtime is closed')
      return runCode({ env, sandbox, limits }, code, runOptions)
    },
    sdk: { declarations: () => (declarations ??= renderDeclarations(registry.definitions())) },
    hooks: { on: (name, hook) => hooks.on(name, hook) },
    tools: {
      register: (tools) => registry.register(toList(tools)),
      unregister: (names) => registry.unregister(names),
      names: () => registry.names(),
    },
    log,
    on: (_type, listener) => log.subscribe(listener),
    limits,
    close: async () => {
      closed = true
      await sandbox.close()
    },
  }
}

function toList(tools: RuntimeOptions['tools']): AnyToolDefinition[] {
  if (!tools) return []
  return Array.isArray(tools) ? [...tools] : Object.values(tools)
}

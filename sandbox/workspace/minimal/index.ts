/**
 * Minimal mode: exactly a persistent bash and an editor over one workspace, in a vendor's schemas, with
 * the workspace policy as their pre-execute hook (refusals are denials, EROFS/EACCES/EPERM, as for the
 * other workspace tools) and the shells ended with the runtime.
 */
import { resolve } from 'node:path'
import type { JsonValue, PreExecuteHook, ToolCall, ToolContext, ToolDefinition } from '../../../vocabulary/types.js'
import { guardPath, guardRemove, type WorkspaceState } from '../guard.js'
import { createHostOps } from '../host-ops.js'
import { DEFAULT_BASH_TIMEOUT_MS } from '../bash-tool.js'
import { WorkspaceError, type WorkspaceConfig } from '../ops.js'
import { operationToPatch, type PatchOperation } from './apply-patch.js'
import { ShellPool } from './shell-pool.js'
import { ShellSession } from './shell-session.js'
import type { ShellHost } from './shell.js'
import { minimalTools, type MinimalFlavour } from './tools.js'
import { parsePatch } from './v4a.js'

export type { MinimalFlavour } from './tools.js'
export type { ShellHost } from './shell.js'

export interface MinimalOptions {
  /** The workspace root as the caller spelled it (for paths given that way). */
  givenRoot: string
  config: WorkspaceConfig
  flavour: MinimalFlavour
  bwrapPath?: string
  /** Persistent shells open at once (one per session). */
  maxShells?: number
  /** How long one command may run (default 120,000 ms); OpenAI's `timeout_ms` may ask for less or more. */
  shellTimeoutMs?: number
  sessionKey(ctx: ToolContext): string
  /** Where the shells run when not under bubblewrap on the host (the Docker backend's containers). */
  shellHost?: ShellHost
}

export interface Minimal {
  tools: ToolDefinition[]
  policy: PreExecuteHook
  /** Live persistent shells now. */
  shells(): number
  /** Ends every shell; resolves once none is left (containers removed). */
  close(): Promise<void>
}

const DENIALS = new Set(['EACCES', 'EROFS', 'EPERM'])

function field(args: JsonValue, key: string): JsonValue | undefined {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? args[key] : undefined
}

/** Every path a call touches, with what it does to it. */
function pathsOf(call: ToolCall): Array<[string, 'read' | 'write' | 'remove']> {
  if (call.name === 'str_replace_based_edit_tool') {
    const path = field(call.args, 'path')
    return typeof path === 'string' ? [[path, field(call.args, 'command') === 'view' ? 'read' : 'write']] : []
  }
  const input = field(call.args, 'input')
  const op = field(call.args, 'operation') as PatchOperation | undefined
  const text =
    typeof input === 'string' ? input : op && typeof op === 'object' && typeof op.path === 'string' ? operationToPatch(op) : undefined
  const parsed = text === undefined ? undefined : parsePatch(text)
  if (!parsed?.ok) return []
  return parsed.value.flatMap(
    (p): Array<[string, 'write' | 'remove']> =>
      p.type === 'delete'
        ? [[p.path, 'remove']]
        : p.type === 'update' && p.moveTo !== undefined
          ? [
              [p.path, 'remove'],
              [p.moveTo, 'write'],
            ]
          : [[p.path, 'write']],
  )
}

function minimalPolicy(state: WorkspaceState, names: ReadonlySet<string>): PreExecuteHook {
  return (call) => {
    if (!names.has(call.name)) return undefined
    if ((call.name === 'bash' || call.name === 'shell') && !state.config.exec)
      return { deny: { code: 'EPERM', message: `${call.name} is turned off for this workspace (exec disabled)` } }
    try {
      for (const [path, access] of pathsOf(call)) {
        if (access === 'remove') guardRemove(state, path)
        else guardPath(state, path, access)
      }
    } catch (err) {
      if (err instanceof WorkspaceError && DENIALS.has(err.code)) return { deny: { code: err.code, message: err.message } }
    }
    return undefined
  }
}

export function createMinimal(options: MinimalOptions): Minimal {
  const { config } = options
  const given = resolve(options.givenRoot)
  const alias = options.shellHost?.rootAlias
  const roots = [config.root, ...[given, alias].filter((r): r is string => r !== undefined && r !== config.root)]
  const state: WorkspaceState = { config, roots }
  const bwrapPath = options.bwrapPath ?? 'bwrap'
  const start = options.shellHost?.start ?? (() => new ShellSession({ config, bwrapPath }))
  const shells = new ShellPool(start, options.maxShells)
  const tools = minimalTools(
    {
      state,
      host: createHostOps(config, bwrapPath),
      shells,
      sessionKey: options.sessionKey,
      timeoutMs: options.shellTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS,
      // A container's shell mounts this same tree: the editor keeps the host's policy-checked writes and
      // needs no runner container of its own.
      ...(options.shellHost ? { hostFiles: true } : {}),
    },
    options.flavour,
  )
  return {
    tools,
    policy: minimalPolicy(state, new Set(tools.map((t) => t.name))),
    shells: () => shells.size,
    close: () => shells.close(),
  }
}

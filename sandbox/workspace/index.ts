/**
 * The workspace: file tools and `bash` over one folder, and the policy that guards them.
 * Register `tools` and add `policy` as a pre-execute hook; the tools re-check at the point of use anyway.
 */
import { realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { PreExecuteHook, ToolDefinition } from '../../vocabulary/types.js'
import { astGrepTool } from './ast-edit.js'
import { bashTool } from './bash-tool.js'
import { forgetKeptFolders } from './beneath.js'
import { fsTools } from './fs-tools.js'
import { createPolicy, type WorkspaceState } from './guard.js'
import { createHostOps } from './host-ops.js'
import type { WorkspaceConfig } from './ops.js'
import { resolveInside } from './paths.js'

export type { WorkspaceConfig, WorkspaceOps } from './ops.js'
export { WORKSPACE_SERVICE } from './ops.js'
export { createHostOps } from './host-ops.js'

export interface WorkspaceOptions {
  /** The workspace folder; it must exist. */
  root: string
  /** `true`: the whole workspace is read-only. A list: these paths (relative to the root, or absolute inside it). */
  readOnly?: boolean | string[]
  /** Whether `bash` may run commands. Default true. */
  exec?: boolean
  /** Whether `bash` commands get the network. Default false. */
  network?: boolean
  /** The bubblewrap binary. Default `bwrap` on PATH. */
  bwrapPath?: string
  /** Size in bytes of the private /tmp each `bash` command gets (a tmpfs, so it is memory). Default 64 MiB. */
  tmpBytes?: number
  /** Processes (threads included) one `bash` command may have at once; a fork bomb stops there. Default 256. */
  maxProcesses?: number
  /**
   * `write_file`/`edit_file` in a direct run replace each file atomically (a temp file renamed over it), so a
   * reader at that moment never sees half of it. Default false: an existing file is written in place (3–9×
   * cheaper; a staged run, `atomic` or `dry-run`, never shows a half-written file either way).
   */
  atomicWrites?: boolean
}

export interface Workspace {
  tools: ToolDefinition[]
  policy: PreExecuteHook
  /** Real path of the root. */
  root: string
  /** What a backend needs to build its own `WorkspaceOps` (JSON). */
  config: WorkspaceConfig
  /** Let go of every descriptor kept open beneath the root. */
  close(): void
}

function positiveInt(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`workspace ${name} must be a positive integer, got ${n}`)
  return n
}

export function createWorkspace(options: WorkspaceOptions): Workspace {
  const given = resolve(options.root)
  // A misconfigured workspace is the caller's bug, not the model's: this one throws.
  if (!statSync(given).isDirectory()) throw new Error(`workspace root ${given} is not a folder`)
  const root = realpathSync.native(given)
  const roots = given === root ? [root] : [root, given]
  const ro = options.readOnly
  const readOnly = ro === true ? [root] : Array.isArray(ro) ? ro.map((p) => resolveInside(roots, p).real) : []
  const config: WorkspaceConfig = {
    root,
    readOnly,
    exec: options.exec ?? true,
    network: options.network ?? false,
    ...(options.tmpBytes !== undefined ? { tmpBytes: positiveInt(options.tmpBytes, 'tmpBytes') } : {}),
    ...(options.maxProcesses !== undefined ? { maxProcesses: positiveInt(options.maxProcesses, 'maxProcesses') } : {}),
    ...(options.atomicWrites === true ? { atomicWrites: true } : {}),
  }
  const state: WorkspaceState = { config, roots }
  const host = createHostOps(config, options.bwrapPath ?? 'bwrap')
  const tools = [...fsTools(state, host), astGrepTool(state, host), bashTool(state, host)]
  const policy = createPolicy(state, new Set(tools.map((t) => t.name)))
  return { tools, policy, root, config, close: () => forgetKeptFolders(root) }
}

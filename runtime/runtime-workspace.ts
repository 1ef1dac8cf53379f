/**
 * The workspace part of a runtime: its modules loaded only when it has one, its tools and policy joined to
 * the registry, a killed host's half-done apply finished, and what every run needs to track or stage its
 * changes — chosen by the backend's capabilities, never its name.
 */
import type { Sandbox } from '../sandbox/types.js'
import type { WorkspaceOptions } from '../sandbox/workspace/index.js'
import { WORKSPACE_SERVICE, type WorkspaceOps } from '../sandbox/workspace/ops.js'
import type { ChangeMode, ToolCall, ToolError } from '../vocabulary/types.js'
import type { Hooks } from './hooks.js'
import type { ToolRegistry } from './registry.js'
import type { RunCodeDeps } from './run-inputs.js'

/** Everything a runtime with a workspace uses of it, loaded together when it has one. */
export async function loadWorkspaceModules() {
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

export type WorkspaceModules = Awaited<ReturnType<typeof loadWorkspaceModules>>
type Workspace = ReturnType<WorkspaceModules['createWorkspace']>

/** Opens the workspace: its tools registered (not in Minimal mode, which has its own), its policy (and, staged, the refusal of unstaged changes) hooked. */
export async function openWorkspace(
  options: WorkspaceOptions | undefined,
  changeMode: ChangeMode,
  parts: { registry: ToolRegistry; hooks: Hooks },
  withTools = true,
) {
  if (!options) {
    if (changeMode !== 'apply') throw new TypeError('codeact: changes: "atomic" and "dry-run" need a workspace')
    return undefined
  }
  const modules = await loadWorkspaceModules()
  const workspace = modules.createWorkspace(options)
  if (withTools) {
    parts.registry.register(modules.withWorkspaceAnnotations(workspace.tools, workspace.config))
    parts.hooks.on('pre-execute', workspace.policy)
  }
  return { modules, workspace }
}

/** After the runtime's own hooks: in a staged runtime a native call that changes the tree is refused. */
export function refuseUnstagedIn(hooks: Hooks, changeMode: ChangeMode): void {
  if (changeMode !== 'apply') hooks.on('pre-execute', (call) => refuseUnstaged(call, changeMode))
}

/** What each run of a runtime with a workspace needs to track or stage its changes. */
export function workspaceRunDeps(
  opened: { modules: WorkspaceModules; workspace: Workspace },
  options: { workspace: WorkspaceOptions; state: string; changeMode: ChangeMode; runOps: Map<string, WorkspaceOps> },
  sandbox: Sandbox,
): NonNullable<RunCodeDeps['workspace']> {
  const { modules, workspace } = opened
  const bwrap = options.workspace.bwrapPath ?? 'bwrap'
  const { programWrites, stagesItself } = sandbox.capabilities
  const hostOps = modules.createHostOps(workspace.config, bwrap)
  return {
    config: workspace.config,
    stateDir: options.state,
    mode: options.changeMode,
    runOps: options.runOps,
    baseOps: (runId) => {
      const svc = sandbox.services?.(runId)?.[WORKSPACE_SERVICE]
      return isOps(svc) ? svc : hostOps
    },
    stagedExec: modules.stagedExecFor(workspace.config, bwrap, programWrites),
    startRunChanges: modules.startRunChanges,
    // The program writes the mounted tree itself: the whole tree is compared, read through the host's ops.
    ...(programWrites ? { programWrites: true, hostOps } : {}),
    ...(stagesItself && sandbox.stageRun ? { stageRun: sandbox.stageRun.bind(sandbox) } : {}),
  }
}

const MUTATING = new Set(['write_file', 'edit_file', 'mkdir', 'remove', 'bash'])

/** In a staged runtime, a native call that would change the real tree is refused; programs are staged. */
function refuseUnstaged(call: Readonly<ToolCall>, mode: ChangeMode): { deny: ToolError } | undefined {
  if (call.origin !== 'native') return undefined
  const rewrites = call.name === 'ast_grep' && typeof call.args === 'object' && call.args !== null && 'rewrite' in call.args
  if (!MUTATING.has(call.name) && !rewrites) return undefined
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

/**
 * Minimal mode's wiring: the workspace's persistent bash and editor in a vendor's schemas take the place
 * of the workspace tools and `run_code` (sandbox/workspace/minimal/). Each session (the `session` of an
 * `executeToolCalls` batch) has its own shell; calls outside a session share the runtime's.
 */
import { dockerClientMissing } from '../sandbox/docker/client.js'
import type { DockerSandboxOptions } from '../sandbox/docker/options.js'
import { DependencyError } from '../sandbox/package-manager.js'
import type { Workspace, WorkspaceOptions } from '../sandbox/workspace/index.js'
import type { Minimal, MinimalFlavour } from '../sandbox/workspace/minimal/index.js'
import type { ToolContext } from '../vocabulary/types.js'

export interface MinimalModeOptions {
  workspace?: WorkspaceOptions
  sandbox?: unknown
  docker?: Record<string, unknown>
  /** Minimal mode's schemas: `anthropic` (default: `bash`, `str_replace_based_edit_tool`) or `openai` (`shell`, `apply_patch`). */
  minimal?: MinimalFlavour
  /** Minimal mode: persistent shells open at once, one per session (default 8, `--max-shells`). */
  maxShells?: number
  /** Minimal mode: how long one shell command may run before it is killed (default 120,000 ms, `--shell-timeout`). */
  shellTimeoutMs?: number
}

export async function startMinimal(
  options: MinimalModeOptions,
  workspace: Workspace | undefined,
  session: () => unknown,
): Promise<Minimal> {
  if (!workspace || !options.workspace) throw new TypeError("codeact: mode: 'minimal' needs a workspace")
  const flavour = options.minimal ?? 'anthropic'
  if (flavour !== 'anthropic' && flavour !== 'openai')
    throw new TypeError(`codeact: minimal must be anthropic or openai, got ${String(flavour)}`)
  const { createMinimal } = await import('../sandbox/workspace/minimal/index.js')
  const sessionKey = (_ctx: ToolContext): string => {
    const s = session()
    if (typeof s === 'string') return s
    return typeof s === 'object' && s !== null && 'id' in s ? String(s.id) : ''
  }
  return createMinimal({
    givenRoot: options.workspace.root,
    config: workspace.config,
    flavour,
    sessionKey,
    ...(options.workspace.bwrapPath !== undefined ? { bwrapPath: options.workspace.bwrapPath } : {}),
    ...(options.maxShells !== undefined ? { maxShells: options.maxShells } : {}),
    ...(options.shellTimeoutMs !== undefined ? { shellTimeoutMs: options.shellTimeoutMs } : {}),
    ...(options.sandbox === 'docker' ? { shellHost: await dockerShells(options, workspace) } : {}),
  })
}

/**
 * With `sandbox: 'docker'` the shells run in the Docker backend's containers (sandbox/docker/minimal-shell.ts),
 * never on the host: the commands go where the caller asked. Loaded only then, like the backend itself.
 */
async function dockerShells(options: MinimalModeOptions, workspace: Workspace) {
  const missing = dockerClientMissing()
  if (missing) throw new DependencyError(missing)
  const { containerShells } = await import('../sandbox/docker/minimal-shell.js')
  return containerShells((options.docker ?? {}) as DockerSandboxOptions, workspace.config)
}

/**
 * Minimal mode's wiring: the workspace's persistent bash and editor in a vendor's schemas take the place
 * of the workspace tools and `run_code` (sandbox/workspace/minimal/). Each session (the `session` of an
 * `executeToolCalls` batch) has its own shell; calls outside a session share the runtime's.
 */
import type { Workspace, WorkspaceOptions } from '../sandbox/workspace/index.js'
import type { Minimal, MinimalFlavour } from '../sandbox/workspace/minimal/index.js'
import type { ToolContext } from '../vocabulary/types.js'

export interface MinimalModeOptions {
  workspace?: WorkspaceOptions
  minimal?: MinimalFlavour
  maxShells?: number
  shellTimeoutMs?: number
}

export async function startMinimal(options: MinimalModeOptions, workspace: Workspace | undefined, session: () => unknown): Promise<Minimal> {
  if (!workspace || !options.workspace) throw new TypeError("codeact: mode: 'minimal' needs a workspace")
  const flavour = options.minimal ?? 'anthropic'
  if (flavour !== 'anthropic' && flavour !== 'openai') throw new TypeError(`codeact: minimal must be anthropic or openai, got ${String(flavour)}`)
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
  })
}

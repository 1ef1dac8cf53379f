/**
 * What each built-in workspace tool does to the world, as MCP tool annotations (hosts use them to decide
 * what to confirm with the user). Only the workspace is touched, so none is open-world except `bash`
 * when the workspace has the network.
 */
import type { ToolAnnotations, ToolDefinition } from '../../vocabulary/types.js'
import type { WorkspaceConfig } from './ops.js'

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

export function workspaceAnnotations(config: Pick<WorkspaceConfig, 'network'>): Record<string, ToolAnnotations> {
  return {
    read_file: READ,
    list_dir: READ,
    glob: READ,
    stat: READ,
    // Replaces a whole file: destructive, but writing the same content twice changes nothing more.
    write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // A second identical edit acts on the edited text (or fails): not idempotent.
    edit_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    // "Fine if it already exists".
    mkdir: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // A rewrite changes files; a second run finds what the first wrote (or nothing).
    ast_grep: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    remove: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    bash: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: config.network },
  }
}

/** The workspace's tools with their annotations (a tool that already has its own keeps them). */
export function withWorkspaceAnnotations(tools: readonly ToolDefinition[], config: Pick<WorkspaceConfig, 'network'>): ToolDefinition[] {
  const table = workspaceAnnotations(config)
  return tools.map((t) => (t.annotations || !table[t.name] ? t : { ...t, annotations: table[t.name] }))
}

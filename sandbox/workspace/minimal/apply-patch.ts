/**
 * `apply_patch`: a V4A patch applied all or nothing. Every path is judged by the workspace policy and
 * every hunk applied in memory first; only a patch that applies whole is written, and a write that fails
 * part way (the disk, a path that became read-only) puts back what was already written.
 */
import { guardPath, guardRemove, type WorkspaceState } from '../guard.js'
import { WorkspaceError, type WorkspaceOps } from '../ops.js'
import { MAX_FILE_BYTES } from '../fs-tools.js'
import { applyHunks, parsePatch, type PatchOp } from './v4a.js'

/** The Responses API's hosted `apply_patch` operation, one file per call (its diff is V4A). */
export interface PatchOperation {
  type: 'create_file' | 'update_file' | 'delete_file'
  path: string
  diff?: string | undefined
}

/** The same operation as a one-file V4A patch. */
export function operationToPatch(op: PatchOperation): string {
  const head = op.type === 'create_file' ? '*** Add File: ' : op.type === 'update_file' ? '*** Update File: ' : '*** Delete File: '
  const body = op.type === 'delete_file' ? '' : `\n${(op.diff ?? '').replace(/\n$/, '')}`
  return `*** Begin Patch\n${head}${op.path}${body}\n*** End Patch`
}

/** A file's text after the patch, or null when removed, with its text before (null when new). */
interface Planned {
  real: string
  before: string | null
  after: string | null
}

async function readOrNull(ops: WorkspaceOps, real: string): Promise<string | null> {
  try {
    return await ops.readFile(real, MAX_FILE_BYTES)
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return null
    throw e
  }
}

async function plan(state: WorkspaceState, ops: WorkspaceOps, patchOps: PatchOp[]): Promise<Map<string, Planned>> {
  const files = new Map<string, Planned>()
  const load = async (path: string, access: 'write' | 'remove'): Promise<Planned> => {
    const real = access === 'remove' ? guardRemove(state, path).real : guardPath(state, path, 'write').real
    let p = files.get(real)
    if (!p) {
      const before = await readOrNull(ops, real)
      p = { real, before, after: before }
      files.set(real, p)
    }
    return p
  }
  for (const op of patchOps) {
    if (op.type === 'add') {
      const p = await load(op.path, 'write')
      if (p.after !== null)
        throw new WorkspaceError('EEXIST', `${op.path}: Add File, but the file exists; use Update File; nothing of this patch was written`)
      p.after = op.content
    } else if (op.type === 'delete') {
      const p = await load(op.path, 'remove')
      if (p.after === null)
        throw new WorkspaceError('ENOENT', `${op.path}: Delete File, but there is no such file; nothing of this patch was written`)
      p.after = null
    } else {
      const p = await load(op.path, 'write')
      if (p.after === null)
        throw new WorkspaceError('ENOENT', `${op.path}: Update File, but there is no such file; nothing of this patch was written`)
      const applied = applyHunks(op.path, p.after, op.hunks)
      if (!applied.ok) throw new WorkspaceError('EINVAL', applied.message)
      if (op.moveTo === undefined) p.after = applied.value
      else {
        const dest = await load(op.moveTo, 'write')
        if (dest !== p && dest.after !== null)
          throw new WorkspaceError('EEXIST', `${op.path}: Move to ${op.moveTo}, but that file exists; nothing of this patch was written`)
        p.after = null
        dest.after = applied.value
      }
    }
  }
  return files
}

async function put(ops: WorkspaceOps, real: string, text: string | null): Promise<void> {
  if (text === null) await ops.remove(real, false).catch((e: { code?: string }) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)))
  else await ops.writeFile(real, text)
}

/** Applies `patchText`; answers Codex's summary ("A path", "M path", "D path"). */
export async function applyPatch(state: WorkspaceState, ops: WorkspaceOps, patchText: string): Promise<string> {
  const parsed = parsePatch(patchText)
  if (!parsed.ok) throw new WorkspaceError('EINVAL', `${parsed.message}; nothing was written`)
  const files = await plan(state, ops, parsed.value)
  const done: Planned[] = []
  try {
    for (const p of files.values()) {
      if (p.before === p.after) continue
      await put(ops, p.real, p.after)
      done.push(p)
    }
  } catch (e) {
    for (const p of done.reverse()) await put(ops, p.real, p.before).catch(() => {})
    const err = e as { code?: string; message?: string }
    throw new WorkspaceError((err.code as 'EIO') ?? 'EIO', `${err.message ?? String(e)}; the files already written were put back`)
  }
  const rel = (real: string) => real.slice(state.config.root.length + 1)
  const lines = [...files.values()]
    .filter((p) => p.before !== p.after)
    .map((p) => `${p.before === null ? 'A' : p.after === null ? 'D' : 'M'} ${rel(p.real)}`)
  return `Success. Updated the following files:\n${lines.join('\n')}\n`
}

/**
 * The workspace policy, as one function both sides use: the pre-execute hook asks it before a call
 * (and turns its refusal into `{ deny }`), and every tool asks it again at the point of use.
 */
import { basename, dirname, join } from 'node:path'
import type { JsonValue, PreExecuteHook, ToolCall } from '../../vocabulary/types.js'
import { compileGlob, expandBraces, type CompiledGlob } from './glob.js'
import { WorkspaceError, type WorkspaceConfig } from './ops.js'
import { isWithin, lexicalPath, resolveInside, resolveInsidePlain, toRel, type ResolvedPath } from './paths.js'

/** What a tool does to its path. */
export type Access = 'read' | 'write' | 'remove'

export interface WorkspaceState {
  config: WorkspaceConfig
  /** The real root first, then the root as the user spelled it. */
  roots: string[]
  /** What the policy hook resolved, by the arguments object it judged (see `guardArgs`). */
  vetted?: WeakMap<object, Vetted>
  /** Folders the policy found free of symlinks, by run (`resolveInsidePlain`); dropped whenever `bash` may change the tree. */
  plain?: Map<string, Set<string>>
}

/** Runs whose plain folders the policy keeps at once (runs beside each other; the oldest is forgotten). */
const PLAIN_RUNS = 4

/** The plain folders of the run `call` belongs to; none for a call outside a program's run. */
function plainDirsOf(state: WorkspaceState, call: ToolCall): Set<string> | undefined {
  if (call.origin !== 'code' || call.parentId === undefined) return undefined
  const runs = (state.plain ??= new Map())
  let dirs = runs.get(call.parentId)
  if (dirs === undefined) {
    if (runs.size >= PLAIN_RUNS) runs.delete(runs.keys().next().value as string)
    runs.set(call.parentId, (dirs = new Set()))
  }
  return dirs
}

/** What a `bash` command may have changed: every folder the policy took for plain is judged afresh. */
export function forgetPlainDirs(state: WorkspaceState): void {
  state.plain = undefined
}

interface Vetted {
  path: string
  access: Access
  resolved: ResolvedPath
  at: number
}

/** How long a policy answer stands for the call it judged (an approval asked in between outlasts it). */
const VETTED_MS = 1_000

/**
 * `guardPath` for a tool's own arguments: when the policy hook has just resolved this very arguments
 * object (same path, same access, under VETTED_MS ago), its answer is used once instead of resolving
 * again — a second realpath of each call's path was a third of a batch's guard cost. What the tool then
 * touches is still reached by the descriptor walk (beneath.ts), which refuses a symlink swapped in since
 * and re-checks read-only parts at the point of use: this shortcut only skips a check the walk repeats.
 * A hook that replaced or edited the arguments gets a fresh resolution.
 */
export function guardArgs(state: WorkspaceState, args: object, path: string, access: Access): ResolvedPath {
  const seen = state.vetted?.get(args)
  if (seen !== undefined) {
    state.vetted?.delete(args)
    if (seen.path === path && seen.access === access && performance.now() - seen.at < VETTED_MS) return seen.resolved
  }
  return guardPath(state, path, access)
}

/** Resolves `path` and checks `access` against the policy. Throws EACCES, EROFS or EPERM. */
export function guardPath(state: WorkspaceState, path: string, access: Access, plain?: Set<string>): ResolvedPath {
  const resolved = plain ? resolveInsidePlain(state.roots, path, plain) : resolveInside(state.roots, path)
  const { root, readOnly } = state.config
  if (access === 'remove' && resolved.real === root) {
    throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
  }
  if (access === 'write' && readOnly.some((ro) => isWithin(resolved.real, ro))) {
    throw new WorkspaceError('EROFS', `${JSON.stringify(path)} is read-only`)
  }
  // Removing a folder removes every read-only path under it too.
  if (access === 'remove' && readOnly.some((ro) => isWithin(resolved.real, ro) || isWithin(ro, resolved.real))) {
    throw new WorkspaceError('EROFS', `${JSON.stringify(path)} is or holds a read-only path`)
  }
  return resolved
}

/**
 * `remove` acts on the entry itself: a symlink in the workspace is removable even when it points out
 * (its target is never touched), so the parent folder is resolved, not the entry.
 */
export function guardRemove(state: WorkspaceState, path: string): ResolvedPath {
  const { root, abs } = lexicalPath(state.roots, path)
  if (abs === root) throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
  const parent = resolveInside(state.roots, dirname(abs))
  const real = join(parent.real, basename(abs))
  if (real === root) throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
  if (state.config.readOnly.some((ro) => isWithin(real, ro) || isWithin(ro, real))) {
    throw new WorkspaceError('EROFS', `${JSON.stringify(path)} is or holds a read-only path`)
  }
  return { real, rel: toRel(root, real) }
}

/** A glob pattern as walks: each brace alternative, relative to the root, its prefix inside the root. */
export function guardGlob(state: WorkspaceState, pattern: string): CompiledGlob[] {
  const out: CompiledGlob[] = []
  for (const alt of expandBraces(pattern)) {
    let rel = alt
    if (rel.startsWith('/')) {
      const root = state.roots.find((r) => isWithin(rel, r))
      if (root === undefined) throw new WorkspaceError('EACCES', `${JSON.stringify(pattern)} is outside the workspace`)
      rel = rel.slice(root.length)
    }
    if (rel.split('/').includes('..'))
      throw new WorkspaceError('EACCES', `${JSON.stringify(pattern)} climbs out with '..'; patterns stay inside the workspace`)
    const compiled = compileGlob(rel)
    // The walk starts at the prefix; it must really be inside (a symlinked prefix must not lead out).
    const prefix = compiled.prefix === '' ? { rel: '.' } : guardPath(state, compiled.prefix, 'read')
    out.push({ prefix: prefix.rel === '.' ? '' : prefix.rel, regex: compiled.regex })
  }
  return out
}

/** Which argument of which tool is a path, and what the tool does to it. */
const PATH_TOOLS: Readonly<Record<string, Access>> = {
  read_file: 'read',
  list_dir: 'read',
  stat: 'read',
  write_file: 'write',
  edit_file: 'write',
  mkdir: 'write',
  remove: 'remove',
}

function stringArg(args: JsonValue, key: string): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const v = args[key]
  return typeof v === 'string' ? v : undefined
}

/**
 * `ast_grep`'s paths: each inside the workspace (EACCES), and with a rewrite, not all read-only (EROFS); a
 * read-only file its globs reach is refused by the tool before anything is written.
 */
function guardAstGrep(state: WorkspaceState, args: JsonValue): void {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return
  const paths = Array.isArray(args.paths) ? args.paths.filter((p): p is string => typeof p === 'string') : ['.']
  for (const path of paths) {
    for (const { prefix } of guardGlob(state, path))
      if (typeof args.rewrite === 'string') guardPath(state, prefix === '' ? '.' : prefix, 'write')
  }
}

const DENIAL_CODES = new Set(['EACCES', 'EROFS', 'EPERM'])

/** The policy as a pre-execute hook: denies with EACCES, EROFS or EPERM; lets everything else through. */
export function createPolicy(state: WorkspaceState, toolNames: ReadonlySet<string>): PreExecuteHook {
  return (call) => {
    if (!toolNames.has(call.name)) return undefined
    try {
      if (call.name === 'bash') {
        if (!state.config.exec) return { deny: { code: 'EPERM', message: 'bash is turned off for this workspace (exec disabled)' } }
        forgetPlainDirs(state)
        return undefined
      }
      if (call.name === 'ast_grep') {
        guardAstGrep(state, call.args)
        return undefined
      }
      if (call.name === 'glob') {
        const pattern = stringArg(call.args, 'pattern')
        if (pattern !== undefined) guardGlob(state, pattern)
        return undefined
      }
      const access = PATH_TOOLS[call.name]
      const path = stringArg(call.args, 'path')
      if (access === 'remove' && path !== undefined) guardRemove(state, path)
      else if (access !== undefined && path !== undefined) {
        const resolved = guardPath(state, path, access, plainDirsOf(state, call))
        if (typeof call.args === 'object' && call.args !== null)
          (state.vetted ??= new WeakMap()).set(call.args, { path, access, resolved, at: performance.now() })
      }
      return undefined
    } catch (err) {
      // Only refusals are the policy's business; other failures (a symlink loop …) are the tool's to report.
      if (err instanceof WorkspaceError && DENIAL_CODES.has(err.code)) return { deny: { code: err.code, message: err.message } }
      return undefined
    }
  }
}

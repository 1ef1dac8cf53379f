/**
 * Where a workspace path really points. Every check is made on real paths (symlinks resolved), and a
 * path that does not exist yet is judged by its deepest existing ancestor — a dangling symlink is followed
 * to where a write would land, so it cannot smuggle a file out.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { errnoOf, WorkspaceError } from './ops.js'

/** Symlink hops before a path counts as a loop (Linux's own limit). */
const MAX_HOPS = 40

/** True when `path` is `dir` or inside it. Both are normalized absolute paths. */
export function isWithin(path: string, dir: string): boolean {
  if (path === dir) return true
  const base = dir.endsWith(sep) ? dir : dir + sep
  return path.startsWith(base)
}

/**
 * The real path `abs` designates, whether it exists or not. Never throws for missing files; throws
 * EINVAL for a symlink loop.
 */
export function realPathOf(abs: string, hops = 0): string {
  if (hops > MAX_HOPS) throw new WorkspaceError('EIO', `too many levels of symbolic links at ${abs}`)
  try {
    return realpathSync.native(abs)
  } catch (err) {
    const code = errnoOf(err)
    if (code === 'ELOOP') throw new WorkspaceError('EIO', `too many levels of symbolic links at ${abs}`)
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
  }
  const parent = dirname(abs)
  if (parent === abs) return abs
  let link: string | undefined
  try {
    if (lstatSync(abs).isSymbolicLink()) link = readlinkSync(abs)
  } catch {
    // The last component does not exist: it lands in the real parent.
  }
  // A dangling symlink: where a create would land is its target, resolved from the link's folder.
  if (link !== undefined) return realPathOf(resolve(realPathOf(parent, hops + 1), link), hops + 1)
  return join(realPathOf(parent, hops + 1), basename(abs))
}

export interface ResolvedPath {
  /** Real absolute path, inside the root. */
  real: string
  /** `/`-separated path relative to the root ('.' for the root). */
  rel: string
}

/**
 * Resolves a workspace path (relative to the root, or absolute inside it) to its real path.
 * Throws EACCES when it lands outside the root, by `..`, an absolute path elsewhere or a symlink at any depth.
 * `roots` is the real root first, then other spellings of it (the path as the user gave it).
 */
export function resolveInside(roots: readonly string[], input: string): ResolvedPath {
  const { root, abs } = lexicalPath(roots, input)
  let real: string
  try {
    real = realPathOf(abs)
  } catch (err) {
    // Say it with the path as the caller gave it, never the host's absolute path.
    if (err instanceof WorkspaceError) throw new WorkspaceError(err.code, `${JSON.stringify(input)}: too many levels of symbolic links`)
    throw err
  }
  if (!isWithin(real, root)) throw outside(input, 'resolves outside the workspace through a symlink')
  return { real, rel: toRel(root, real) }
}

/**
 * `resolveInside` for the policy within one run: `plain` holds the folders this run already found free of
 * symlinks (their real path is their own), so a path in one costs one lstat of its last component instead
 * of a realpath of every component. A path through anything else — a symlinked folder, a last component
 * that is a symlink, an error — is resolved in full, and a folder is added only when its whole path
 * resolved to itself. Should a plain folder be swapped for a symlink later in the run, this answer names
 * the folder's old, symlink-free path: the tool's descriptor walk (beneath.ts) meets the symlink there and
 * refuses it at the point of use, so the answer can be stale but never leads out or past a read-only part.
 */
export function resolveInsidePlain(roots: readonly string[], input: string, plain: Set<string>): ResolvedPath {
  const { root, abs } = lexicalPath(roots, input)
  const parent = dirname(abs)
  if (abs !== root && (parent === root || plain.has(parent))) {
    let st: ReturnType<typeof lstatSync> | null
    try {
      st = lstatSync(abs, { throwIfNoEntry: false })
    } catch {
      st = null
    }
    // Missing: a create lands right here (its folder is real); present and not a symlink: it is itself.
    if (st !== null && st?.isSymbolicLink() !== true) return { real: abs, rel: toRel(root, abs) }
  }
  const resolved = resolveInside(roots, input)
  if (resolved.real === abs && abs !== root && parent !== root && !plain.has(parent)) {
    if (plain.size >= MAX_PLAIN_DIRS) plain.clear()
    try {
      if (lstatSync(parent, { throwIfNoEntry: false })?.isDirectory() === true) plain.add(parent)
    } catch {
      // not remembered: resolved in full next time
    }
  }
  return resolved
}

/** Folders a run's policy remembers as plain (past this, it starts again: a bound, not a figure). */
const MAX_PLAIN_DIRS = 4_096

/** The normalized absolute path `input` names, before any symlink; EACCES when it is outside the root. */
export function lexicalPath(roots: readonly string[], input: string): { root: string; abs: string } {
  const root = roots[0]
  if (root === undefined) throw new WorkspaceError('EIO', 'workspace has no root')
  if (input.includes('\0')) throw new WorkspaceError('EACCES', 'path contains a NUL byte')
  let abs = isAbsolute(input) ? resolve(input) : resolve(root, input)
  // An absolute path spelled through the root as configured (say /tmp/ws when /tmp is a symlink).
  for (const alias of roots.slice(1)) {
    if (!isWithin(abs, root) && isWithin(abs, alias)) abs = join(root, relative(alias, abs))
  }
  if (!isWithin(abs, root)) throw outside(input, 'is outside the workspace')
  return { root, abs }
}

export function toRel(root: string, real: string): string {
  const rel = relBelow(root, real)
  return rel === '' ? '.' : rel
}

/** A component that `path.relative` would normalise away: empty, `.` or `..`. */
const UNNORMAL = /(?:^|\/)\.{0,2}(?:\/|$)/

/**
 * `relative(root, path)`, `/`-separated ('' for the root itself). A call makes several of these, so a
 * normalised path beneath the root (what realpath and join give) is sliced instead of re-parsed; anything
 * else goes through `path.relative`.
 */
export function relBelow(root: string, path: string): string {
  if (path === root) return ''
  if (sep === '/' && !root.endsWith('/') && path.length > root.length + 1 && path.startsWith(root) && path[root.length] === '/') {
    const rest = path.slice(root.length + 1)
    if (!UNNORMAL.test(rest)) return rest
  }
  return relative(root, path).split(sep).join('/')
}

function outside(input: string, why: string): WorkspaceError {
  return new WorkspaceError('EACCES', `${JSON.stringify(input)} ${why}`)
}

/**
 * The read-only parts of a workspace as bwrap mounts that `bash` cannot change in any way.
 *
 * A read-only bind alone is not enough: the bind moves with its parent, so `mv pkg elsewhere && mkdir -p
 * pkg/vendor` replaced a read-only `pkg/vendor` with a writable one. So every folder between the root and
 * a read-only path is made a mount point of its own (bound onto itself, read-write): the kernel refuses to
 * rename or remove a mount point (EBUSY), whatever the command tries. A read-only path that does not exist
 * yet gets an empty placeholder folder for the command's lifetime, bound read-only, so `bash` cannot
 * create it either; the placeholder (and any parent made for it) is removed afterwards, once the last
 * command using it has ended — removing it while another sandbox still has it mounted would detach that
 * sandbox's mount.
 */
import { lstatSync, rmdirSync } from 'node:fs'
import { dirname, relative, sep } from 'node:path'
import { mkdirBeneathSync } from './beneath-files.js'
import { isWithin } from './paths.js'
import type { WorkspaceConfig } from './ops.js'

export interface ReadOnlyBinds {
  /** bwrap arguments, after the workspace's own `--bind`. */
  args: string[]
  /** Workspace-relative read-only paths that had to be made for this command (their refusals read as EISDIR …). */
  placeholders: string[]
  /** Call once the command has ended: removes placeholders no other command still uses. */
  release(): void
}

/** Placeholder folders in use, by absolute path: how many commands use each. */
const inUse = new Map<string, number>()

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** The folders strictly between `root` and `path`, outermost first. */
function between(root: string, path: string): string[] {
  const out: string[] = []
  for (let p = dirname(path); p !== root && isWithin(p, root); p = dirname(p)) out.unshift(p)
  return out
}

function relOf(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}

export function prepareReadOnlyBinds(config: WorkspaceConfig): ReadOnlyBinds {
  const { root } = config
  const readOnly = [...config.readOnly].sort()
  const underReadOnly = (p: string): boolean => readOnly.some((ro) => ro !== p && isWithin(p, ro))
  const made: string[] = []
  const placeholders: string[] = []
  const release = (): void => {
    // Deepest first; only what no other command uses, and only while it is still empty.
    for (const p of made.sort().reverse()) {
      const left = (inUse.get(p) ?? 1) - 1
      if (left > 0) {
        inUse.set(p, left)
        continue
      }
      inUse.delete(p)
      try {
        rmdirSync(p)
      } catch {
        // not empty (a writable parent got content) or already gone: leave it
      }
    }
  }
  const roArgs: string[] = []
  const ancestors = new Set<string>()
  for (const ro of readOnly) {
    if (ro === root) {
      roArgs.push('--ro-bind', ro, ro)
      continue
    }
    // Inside another read-only path it is read-only already, and its parent cannot move.
    if (underReadOnly(ro)) continue
    const chain = between(root, ro)
    // Missing, or a placeholder another command still uses (count it, or that command's end removes it under us).
    if (!exists(ro) || (inUse.get(ro) ?? 0) > 0) {
      const missing = [...chain, ro].filter((p) => (inUse.get(p) ?? 0) > 0 || !exists(p))
      try {
        // Made by descriptor: a parent swapped for a symlink is refused, never followed.
        mkdirBeneathSync(root, relOf(root, ro))
      } catch {
        // An ancestor is a file (or unreadable): nothing can be created there while it stays, and the
        // ancestor binds below keep it from being removed.
      }
      for (const p of missing) {
        if (!exists(p)) continue
        inUse.set(p, (inUse.get(p) ?? 0) + 1)
        made.push(p)
      }
      if (exists(ro)) placeholders.push(relOf(root, ro))
    }
    for (const a of chain) if (exists(a)) ancestors.add(a)
    roArgs.push('--ro-bind-try', ro, ro)
  }
  const args: string[] = []
  for (const a of [...ancestors].sort()) if (!readOnly.some((ro) => isWithin(a, ro))) args.push('--bind', a, a)
  args.push(...roArgs)
  return { args, placeholders, release }
}

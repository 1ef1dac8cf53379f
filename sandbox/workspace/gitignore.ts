/**
 * `.gitignore` for `glob`, the way git (and ripgrep, ast-grep) reads it: a `.gitignore` in any folder
 * applies beneath that folder, a deeper file overrides a shallower one, a `!` rule re-includes, a folder
 * that is ignored hides everything under it, and `.git/` itself is never matched. The rules themselves
 * are matched by the `ignore` package (what eslint and prettier use).
 */
import type { Ignore } from 'ignore'
import { ignoreFactory } from '../../sdk/lazy-module.js'

export interface IgnoreRules {
  /** True when `rel` (workspace-relative, `/`-separated) is ignored; `isDir` for folders. */
  ignored(rel: string, isDir: boolean): boolean
}

/** Rules from `.gitignore` texts keyed by the folder they sit in ('' for the root); `exclude` is `.git/info/exclude`. */
export function gitignoreRules(files: ReadonlyMap<string, string>): IgnoreRules {
  const matchers = new Map<string, Ignore>()
  for (const [dir, text] of files) matchers.set(dir, ignoreFactory()().add(text))
  const dirCache = new Map<string, boolean>()

  /** The verdict of the rules alone for one path (its ancestors not considered). */
  const own = (rel: string, isDir: boolean): boolean => {
    let verdict = false
    const parts = rel.split('/')
    for (let depth = 0; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/')
      const m = matchers.get(dir)
      if (!m) continue
      const sub = parts.slice(depth).join('/') + (isDir ? '/' : '')
      const r = m.test(sub)
      if (r.ignored) verdict = true
      else if (r.unignored) verdict = false
    }
    return verdict
  }

  const dirIgnored = (rel: string): boolean => {
    const hit = dirCache.get(rel)
    if (hit !== undefined) return hit
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
    const v = rel.split('/').includes('.git') || (parent !== '' && dirIgnored(parent)) || own(rel, true)
    dirCache.set(rel, v)
    return v
  }

  return {
    ignored(rel, isDir) {
      if (isDir) return dirIgnored(rel)
      const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
      if (parent !== '' && dirIgnored(parent)) return true
      if (rel === '.git') return true
      return own(rel, false)
    },
  }
}

/** The `.gitignore` files that govern a walk: those it found, those above where it started, and `.git/info/exclude`. */
export async function loadGitignores(
  read: (rel: string) => Promise<string | undefined>,
  walkedFiles: Iterable<string>,
  prefixes: Iterable<string>,
): Promise<IgnoreRules> {
  // Only files that exist are read: those the walk met, and — above a walk that started in a subfolder,
  // which the walk did not see — the candidates on the way down from the root.
  const wanted = new Set<string>()
  for (const f of walkedFiles) if (f === '.gitignore' || f.endsWith('/.gitignore') || f === '.git/info/exclude') wanted.add(f)
  for (const p of prefixes) {
    if (p === '') continue
    wanted.add('.gitignore').add('.git/info/exclude')
    const parts = p.split('/')
    for (let i = 1; i <= parts.length; i++) wanted.add(`${parts.slice(0, i).join('/')}/.gitignore`)
  }
  const texts = new Map<string, string>()
  for (const rel of wanted) {
    const text = await read(rel)
    if (text === undefined) continue
    // .git/info/exclude applies from the root, like the root's .gitignore (appended after it there).
    const dir = rel === '.git/info/exclude' ? '' : rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : ''
    texts.set(dir, (texts.get(dir) ?? '') + '\n' + text)
  }
  return gitignoreRules(texts)
}

/**
 * The walk behind `glob` when a plain walk scans too much: a big folder is listed one level at a time,
 * never descending into a folder that `.gitignore` ignores or into `.git/` — as ripgrep and ast-grep do —
 * and each folder of moderate size under it is walked in one go, so a repository whose `node_modules` holds
 * hundreds of thousands of entries still globs its own files, at about the cost of a plain walk of the
 * rest. It uses the backend's own `readdir` and `walk` (by descriptor at the point of use, like every op).
 * Which files are ignored is still decided afterwards, with the rules of every `.gitignore` the walk met.
 */
import { join } from 'node:path'
import { gitignoreRules, type IgnoreRules } from './gitignore.js'
import type { WalkEntry, WalkResult, WorkspaceOps } from './ops.js'

/**
 * Entries under `base` (the folder of workspace-relative `prefix`, '' for the root), paths relative to
 * `base`, at most `limit` of them; `read` gives a workspace-relative file's text, or undefined.
 */
export async function prunedWalk(
  ops: WorkspaceOps,
  base: string,
  prefix: string,
  limit: number,
  read: (rel: string) => Promise<string | undefined>,
  wholeUpTo = 20_000,
): Promise<WalkResult> {
  const texts = new Map<string, string>()
  const add = async (file: string, dir: string): Promise<void> => {
    const text = await read(file)
    if (text !== undefined) texts.set(dir, (texts.get(dir) ?? '') + '\n' + text)
  }
  // The rules above the start (and at it): the root's, .git/info/exclude, each folder's on the way down.
  await add('.gitignore', '')
  await add('.git/info/exclude', '')
  const parts = prefix === '' ? [] : prefix.split('/')
  for (let i = 1; i <= parts.length; i++) await add(`${parts.slice(0, i).join('/')}/.gitignore`, parts.slice(0, i).join('/'))
  let rules: IgnoreRules = gitignoreRules(texts)
  const entries: WalkEntry[] = []
  const abs = (sub: string): string => (sub === '' ? base : join(base, sub))
  /** A folder listed one level at a time: ignored subfolders are skipped, the others walked. */
  const split = async (sub: string): Promise<boolean> => {
    const dir = sub === '' ? prefix : prefix === '' ? sub : `${prefix}/${sub}`
    const listed = await ops.readdir(abs(sub)).catch(() => [])
    if (sub !== '' && listed.some((e) => e.name === '.gitignore' && e.type === 'file')) {
      await add(`${dir}/.gitignore`, dir)
      rules = gitignoreRules(texts)
    }
    for (const e of listed) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`
      if (e.type === 'dir' && (e.name === '.git' || rules.ignored(rel, true))) continue
      if (entries.length >= limit) return false
      const path = sub === '' ? e.name : `${sub}/${e.name}`
      entries.push({ path, type: e.type })
      if (e.type === 'dir' && !(await whole(path))) return false
    }
    return true
  }
  /**
   * A folder walked in one go when it holds at most `wholeUpTo` entries (what is ignored inside is
   * filtered afterwards, as for any walk), else split: a big ignored folder deep inside is never scanned.
   */
  const whole = async (sub: string): Promise<boolean> => {
    const walked = await ops.walk(abs(sub), Math.min(wholeUpTo, limit - entries.length)).catch(() => undefined)
    if (walked === undefined) return true // gone, or swapped for a non-folder since the listing
    if (walked.truncated) return split(sub)
    for (const e of walked.entries) entries.push({ path: `${sub}/${e.path}`, type: e.type })
    return true
  }
  const complete = await split('')
  return { entries, truncated: !complete }
}

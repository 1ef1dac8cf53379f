/**
 * The walk behind `glob` when a plain walk scans too much: folder by folder, never descending into a folder
 * that `.gitignore` ignores or into `.git/` — as ripgrep and ast-grep do — so a repository whose
 * `node_modules` holds hundreds of thousands of entries still globs its own files. Each folder is listed
 * with the backend's own `readdir` (by descriptor at the point of use, like every op). Which files are
 * ignored is still decided afterwards, with the rules of every `.gitignore` the walk met.
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
  const visit = async (sub: string): Promise<boolean> => {
    const dir = sub === '' ? prefix : prefix === '' ? sub : `${prefix}/${sub}`
    const listed = await ops.readdir(sub === '' ? base : join(base, sub)).catch(() => [])
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
      if (e.type === 'dir' && !(await visit(path))) return false
    }
    return true
  }
  const complete = await visit('')
  return { entries, truncated: !complete }
}

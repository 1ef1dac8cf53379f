/**
 * The files a glob pattern matches, workspace-relative and sorted: the walk behind the `glob` tool, shared
 * with the tools that take globs (`ast_grep`). Skips what .gitignore ignores unless asked, never follows a
 * symlinked folder, and fails with E2BIG past its scan or match limit.
 */
import { join } from 'node:path'
import { loadGitignores } from './gitignore.js'
import { prunedWalk } from './glob-walk.js'
import { guardGlob, guardPath, type WorkspaceState } from './guard.js'
import { errnoOf, WorkspaceError, type WorkspaceOps } from './ops.js'

/** Entries a glob walk may visit, and matches it may return. */
export const MAX_GLOB_SCAN = 200_000
export const MAX_GLOB_MATCHES = 10_000
/** Entries a glob first walks in one go; past them it walks folder by folder, skipping ignored ones. */
const FIRST_WALK = 20_000

export async function globFiles(
  state: WorkspaceState,
  ops: WorkspaceOps,
  pattern: string,
  includeIgnored: boolean,
  maxFileBytes: number,
): Promise<string[]> {
  const found = new Set<string>()
  const walkedFiles: string[] = []
  const prefixes: string[] = []
  const read = (rel: string): Promise<string | undefined> => ops.readFile(join(state.config.root, rel), maxFileBytes).catch(() => undefined)
  for (const { prefix, regex } of guardGlob(state, pattern)) {
    const base = prefix === '' ? state.config.root : guardPath(state, prefix, 'read').real
    const pruning = !includeIgnored
    let walked = await ops.walk(base, pruning ? FIRST_WALK : MAX_GLOB_SCAN).catch((err: unknown) => {
      if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return { entries: [], truncated: false }
      throw err
    })
    // Much to scan (a big node_modules, say): walk again without entering the folders .gitignore ignores.
    if (walked.truncated && pruning) walked = await prunedWalk(ops, base, prefix, MAX_GLOB_SCAN, read)
    if (walked.truncated)
      throw new WorkspaceError(
        'E2BIG',
        `${JSON.stringify(pattern)} scans more than ${MAX_GLOB_SCAN} entries${includeIgnored ? '' : ' that .gitignore does not ignore'}; start it with a folder (e.g. "src/**/*.ts")`,
      )
    prefixes.push(prefix)
    for (const e of walked.entries) {
      if (e.type === 'dir') continue
      const rel = prefix === '' ? e.path : `${prefix}/${e.path}`
      walkedFiles.push(rel)
      if (regex.test(rel)) found.add(rel)
    }
  }
  let matches = [...found]
  if (!includeIgnored) {
    const rules = await loadGitignores(read, walkedFiles, prefixes)
    matches = matches.filter((rel) => !rules.ignored(rel, false))
  }
  if (matches.length > MAX_GLOB_MATCHES)
    throw new WorkspaceError('E2BIG', `${JSON.stringify(pattern)} matches more than ${MAX_GLOB_MATCHES} files; narrow it`)
  return matches.sort()
}

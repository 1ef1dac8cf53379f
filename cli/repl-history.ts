/**
 * The REPL's history file: `$CODEACT_REPL_HISTORY`, or `~/.codeact_repl_history`; an empty
 * `CODEACT_REPL_HISTORY` keeps history in memory only (as `NODE_REPL_HISTORY=''` does for node). One entry a
 * line, oldest first, the newest `HISTORY_SIZE` kept; readable by its owner only.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const HISTORY_SIZE = 1000

/** The history file, or undefined when history is not to be kept. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.CODEACT_REPL_HISTORY
  if (given !== undefined) return given.trim() === '' ? undefined : given
  return join(homedir(), '.codeact_repl_history')
}

/** The saved entries, newest first (readline's order); none when the file is missing or unreadable. */
export function loadHistory(path: string | undefined): string[] {
  if (path === undefined) return []
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-HISTORY_SIZE)
      .reverse()
  } catch {
    return []
  }
}

/** Writes `newestFirst` (readline's `history` event) to the file; a failure to write is reported once. */
export function historySaver(path: string | undefined, warn: (message: string) => void): (newestFirst: readonly string[]) => void {
  let warned = false
  return (newestFirst) => {
    if (path === undefined) return
    try {
      writeFileSync(path, [...newestFirst].slice(0, HISTORY_SIZE).reverse().join('\n') + '\n', { mode: 0o600 })
      chmodSync(path, 0o600)
    } catch (e) {
      if (!warned) warn(`cannot save the REPL history to ${path}: ${(e as Error).message}`)
      warned = true
    }
  }
}

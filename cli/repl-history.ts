/**
 * The REPL's history file: `$CODEACT_REPL_HISTORY`, or `~/.codeact_repl_history`; an empty
 * `CODEACT_REPL_HISTORY` keeps history in memory only (as `NODE_REPL_HISTORY=''` does for node). One entry a
 * line, oldest first, the newest `HISTORY_SIZE` kept; readable by its owner only.
 *
 * A person recalls an entry with Up and runs it with Enter, so an entry a program wrote (the file is in
 * the workspace of a `--workspace ~` run) must never be offered: each save also writes the file's MAC (the
 * state key, vocabulary/state-folder.ts) into the state folder, and a file whose MAC does not match is not
 * loaded (it is replaced by the next save).
 */
import { createHash } from 'node:crypto'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { macOf, sameMac, stateDir, stateKey } from '../vocabulary/state-folder.js'

export const HISTORY_SIZE = 1000

/** The history file, or undefined when history is not to be kept. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.CODEACT_REPL_HISTORY
  if (given !== undefined) return given.trim() === '' ? undefined : given
  return join(homedir(), '.codeact_repl_history')
}

const PURPOSE = 'codeact repl history'

/** Where the MAC of the history file at `path` is kept: in the state folder, out of every workspace's reach. */
function macFile(path: string): string {
  return join(stateDir(), `repl-history-${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16)}.mac`)
}

/**
 * The saved entries, newest first (readline's order); none when the file is missing or unreadable, and none
 * (said through `warn`) when it was not written by codeact as it is now.
 */
export function loadHistory(path: string | undefined, warn: (message: string) => void = () => {}): string[] {
  if (path === undefined) return []
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return []
  }
  if (text === '') return []
  const key = stateKey(stateDir())
  let mac = ''
  try {
    mac = readFileSync(macFile(path), 'utf8').trim()
  } catch {
    // no MAC kept: not written by this codeact
  }
  if (!key.ok || !sameMac(mac, macOf(key.value, PURPOSE, text))) {
    warn(
      `the REPL history ${path} was not written by codeact as it is now (something else wrote or changed it): it is not loaded, and your next input replaces it${key.ok ? '' : ` (${key.message})`}`,
    )
    return []
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-HISTORY_SIZE)
    .reverse()
}

/** Writes `newestFirst` (readline's `history` event) to the file, and its MAC; a failure to write is reported once. */
export function historySaver(path: string | undefined, warn: (message: string) => void): (newestFirst: readonly string[]) => void {
  let warned = false
  return (newestFirst) => {
    if (path === undefined) return
    try {
      const text = [...newestFirst].slice(0, HISTORY_SIZE).reverse().join('\n') + '\n'
      const key = stateKey(stateDir())
      if (!key.ok) throw new Error(key.message)
      writeFileSync(path, text, { mode: 0o600 })
      chmodSync(path, 0o600)
      writeFileSync(macFile(path), macOf(key.value, PURPOSE, text), { mode: 0o600 })
    } catch (e) {
      if (!warned) warn(`cannot save the REPL history to ${path}: ${(e as Error).message}`)
      warned = true
    }
  }
}

/**
 * What a runtime takes over from earlier runs, checked before anything uses it: the state folder (never
 * inside the workspace, nor holding it) and the sessions of an earlier log (only from a log whose every line
 * checks against the state key). Both refusals throw at createRuntime, naming the fix.
 */
import { stateAgainstWorkspace, stateDir, stateKey } from '../vocabulary/state-folder.js'
import type { RunEvent } from '../vocabulary/types.js'
import type { EventLog } from './event-log.js'
import { readPriorSessions } from './session-history.js'

export interface OpenedState {
  /** The state folder (staging journals, the key). */
  state: string
  /** Sessions found in the earlier `logFile`, by `sessionKey`. */
  priorSessions: Map<string, RunEvent[]> | undefined
}

export function openState(options: { stateDir?: string; logFile?: string; workspace?: { root: string } }, log: EventLog): OpenedState {
  const state = stateDir(options.stateDir)
  const clash = options.workspace ? stateAgainstWorkspace(state, options.workspace.root) : undefined
  if (clash) throw new TypeError(`codeact: ${clash}`)
  if (!options.logFile) return { state, priorSessions: undefined }
  const key = stateKey(state)
  if (!key.ok) throw new TypeError(`codeact: the log cannot be signed: ${key.message}`)
  const prior = readPriorSessions(options.logFile, key.value)
  if (!prior.ok)
    throw Object.assign(
      new Error(
        `codeact: the log ${options.logFile} cannot be trusted (line ${prior.line}: ${prior.why}); its sessions are not restored and the file is left as it is. Move it away, or choose another log file, to start a new log`,
      ),
      { code: 'EBADMSG' },
    )
  log.writeTo(options.logFile, key.value)
  return { state, priorSessions: prior.sessions }
}

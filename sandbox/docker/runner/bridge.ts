/**
 * One run's state and its end of the bridge: console lines batched into `log` messages, tool calls sent
 * (after the lines written before them), and the run's outcome. A session container runs many programs in
 * one realm, so each run has state of its own: whatever an earlier run left behind (a closure holding its
 * `tools`, a timer) reaches only its own, finished, run — never the current one's call ids or console.
 */
import { ERROR_NAME_MAX, ERROR_TEXT_MAX, type FromRunner, type RunnerError } from '../wire-messages.js'
import { append, send, slice } from './wire.js'

const StringCtor = String
const setImmediateFn = setImmediate
/** Console text batched before a `log` message is sent at once. */
const LOG_FLUSH_CHARS = 64 * 1024

/** What the realm's `bind` returns (images/realm.mjs). */
export interface Bridge {
  deliver(id: unknown, resultJson: string): void
  start(
    js: string,
    onConsole: (programConsole: Record<string, (...args: unknown[]) => void>) => void,
    done: (outcome: unknown) => void,
  ): void
}

export interface RunState {
  finished: boolean
  bridge: Bridge | undefined
  flush(): void
  log(level: unknown, text: unknown): void
  call(id: unknown, name: unknown, argsJson: unknown): void
}

export function newRun(): RunState {
  let logBatch: { level: 'log'; text: string }[] = []
  let logChars = 0
  let flushScheduled = false
  // No prototype: an earlier run of the session cannot plant a setter for these names on Object.prototype.
  const state = Object.create(null) as RunState
  state.finished = false
  state.bridge = undefined
  state.flush = () => {
    flushScheduled = false
    if (logBatch.length === 0) return
    const entries = logBatch
    logBatch = []
    logChars = 0
    send({ type: 'log', entries })
  }
  state.log = (level, text) => {
    if (state.finished || typeof level !== 'string' || typeof text !== 'string') return
    append(logBatch, { level: level as 'log', text })
    logChars += text.length
    if (logChars > LOG_FLUSH_CHARS) state.flush()
    else if (!flushScheduled) {
      flushScheduled = true
      setImmediateFn(state.flush)
    }
  }
  state.call = (id, name, argsJson) => {
    if (typeof id !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
    if (state.finished) return // a call of a run that ended (the prelude routes a kept tool function to the current run)
    state.flush() // console lines written before the call reach the host before it
    send({ type: 'call', id, name, argsJson })
  }
  return state
}

/** An error as the wire carries it, whatever was thrown (a getter that throws included). */
export function errorFields(e: unknown): RunnerError {
  let name = 'Error'
  let message = ''
  let stack: string | undefined
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      const err = e as { name?: unknown; message?: unknown; stack?: unknown }
      name = StringCtor(err.name || 'Error')
      message = StringCtor(err.message === undefined ? e : err.message)
      const s = err.stack
      if (typeof s === 'string') stack = slice(s, 0, ERROR_TEXT_MAX)
    } else {
      name = 'Thrown'
      message = StringCtor(e)
    }
  } catch {
    message = '[unprintable error]'
  }
  const fields: RunnerError = { name: slice(name, 0, ERROR_NAME_MAX), message: slice(message, 0, ERROR_TEXT_MAX) }
  if (stack !== undefined) fields.stack = stack
  return fields
}

export type Ending = Extract<FromRunner, { type: 'done' | 'unhandled' }>

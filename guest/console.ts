/**
 * A run's `console`: each line formatted in the sandbox (inspect.ts), counted in UTF-8 bytes against the
 * run's output cap, and forwarded to the host as text. Past the cap one marker line says so and the rest
 * is counted as dropped (the outcome reports how many bytes, and how many lines were sent).
 */
import { formatLogArgs } from './inspect.js'
import { type Any, ObjectCreate, ObjectFreeze } from './intrinsics.js'

export type HostLog = (level: string, text: string) => void
export type RunConsole = { console: Any; droppedBytes(): number; logLines(): number }

function byteLength(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3
  }
  return n
}

export function makeConsole(hostLog: HostLog, maxOutputBytes: number): RunConsole {
  let usedBytes = 0
  let droppedBytes = 0
  let cutMarked = false
  let logLines = 0
  function emit(level: string, args: ArrayLike<unknown>): void {
    let text: string
    try {
      text = formatLogArgs(args)
    } catch {
      text = '[unprintable value]'
    }
    const size = byteLength(text) + 1
    if (usedBytes + size > maxOutputBytes) {
      droppedBytes += size
      if (!cutMarked) {
        cutMarked = true
        logLines++
        hostLog('warn', '[output cut: the console output cap of ' + maxOutputBytes + ' bytes was reached]')
      }
      return
    }
    usedBytes += size
    logLines++
    hostLog(level, text)
  }
  const consoleObject = ObjectCreate(null)
  const levels = ['log', 'info', 'warn', 'error', 'debug']
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!
    consoleObject[level] = (...args: unknown[]) => {
      emit(level, args)
    }
  }
  consoleObject.trace = (...args: unknown[]) => {
    emit('error', args)
  }
  consoleObject.dir = (v: unknown) => {
    emit('log', [v])
  }
  // The data, whole: a model reads it better than a drawn table, and no column is lost to `properties`.
  consoleObject.table = (data: unknown) => {
    emit('log', [data])
  }
  ObjectFreeze(consoleObject)
  return { console: consoleObject, droppedBytes: () => droppedBytes, logLines: () => logLines }
}

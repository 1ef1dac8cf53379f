/**
 * The in-process backend's realm: a node:vm context with what a compiled program expects as globals
 * (`tools`, `ToolCallError`, `console`), a session's seeded `Math.random` and replayed `Date.now`, and, when
 * a workspace is given, a `require('node:fs')` with just `writeFileSync` beneath its root. Written for the
 * seam, not for safety: the program shares this process, its heap and its thread.
 */
import fs from 'node:fs'
import path from 'node:path'
import { inspect } from 'node:util'
import vm from 'node:vm'
import type { LogEntry } from '../../../vocabulary/types.js'
import type { SandboxDenial, SandboxEntropy } from '../../../sandbox/types.js'

export interface InProcessWorkspace {
  root: string
  /** Folders (relative to `root`) whose writes the program is refused with EROFS. */
  readOnly: readonly string[]
}

/** One run's view of its realm: what it reported while it ran. */
export interface RunTrace {
  droppedOutputBytes: number
  denials: SandboxDenial[]
  ownEffects: string[]
  clock: number[] | undefined
}

const CLASS = `globalThis.ToolCallError = class ToolCallError extends Error {
  constructor(toolName, code, message) { super(message); this.name = 'ToolCallError'; this.toolName = toolName; this.code = code }
}`

export function newRealm(): vm.Context {
  const context = vm.createContext({})
  vm.runInContext(CLASS, context)
  return context
}

/** Console lines as the program writes them, each its UTF-8 bytes plus a newline against the cap. */
export function installConsole(realm: vm.Context, maxOutputBytes: number, trace: RunTrace, log: (e: LogEntry[]) => void): void {
  let used = 0
  const emit =
    (level: LogEntry['level']) =>
    (...args: unknown[]) => {
      const text = args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ')
      const size = Buffer.byteLength(text) + 1
      if (used + size > maxOutputBytes) {
        // One line of its own says the rest was cut, once.
        if (trace.droppedOutputBytes === 0)
          log([{ level: 'warn', text: `[output cut: the console output cap of ${maxOutputBytes} bytes was reached]` }])
        trace.droppedOutputBytes += size
      } else {
        used += size
        log([{ level, text }])
      }
    }
  realm.console = { log: emit('log'), info: emit('info'), warn: emit('warn'), error: emit('error'), debug: emit('debug') }
}

/** setTimeout and clearTimeout on this process's timers; the run clears what is left when it ends. */
export function installTimers(realm: vm.Context): Set<NodeJS.Timeout> {
  const timers = new Set<NodeJS.Timeout>()
  realm.setTimeout = (fn: () => void, ms?: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      fn()
    }, ms)
    timers.add(timer)
    return timer
  }
  realm.clearTimeout = (timer: NodeJS.Timeout) => {
    timers.delete(timer)
    clearTimeout(timer)
  }
  return timers
}

/** Math.random from the seed (FNV-1a, then a xorshift), Date.now from the replayed clock first; every read is kept. */
export function installEntropy(realm: vm.Context, entropy: SandboxEntropy, trace: RunTrace): void {
  let state = 2166136261
  for (const ch of entropy.seed) state = Math.imul(state ^ (ch.codePointAt(0) ?? 0), 16777619)
  const math = vm.runInContext('Math', realm) as Math
  const date = vm.runInContext('Date', realm) as DateConstructor
  math.random = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4294967296
  }
  const replay = expand(entropy.clock ?? [])
  const read: number[] = []
  trace.clock = read
  date.now = () => {
    const value = replay.shift() ?? Date.now()
    read.push(value)
    return value
  }
}

/** Undo the run-length encoding (a negative -k repeats the value before it k more times). */
function expand(clock: readonly number[]): number[] {
  const out: number[] = []
  for (const x of clock) {
    if (x >= 0) out.push(x)
    else for (let i = 0; i < -x; i++) out.push(out.at(-1) ?? 0)
  }
  return out
}

/** `require('node:fs').writeFileSync` beneath the workspace root; a read-only folder refuses with EROFS, reported even if caught. */
export function installWorkspace(realm: vm.Context, workspace: InProcessWorkspace, trace: RunTrace): void {
  const writeFileSync = (file: string, data: string) => {
    const relative = path.relative(workspace.root, path.resolve(workspace.root, file))
    const denied = relative.startsWith('..')
      ? { code: 'EACCES', message: `EACCES: permission denied, open '${file}'` }
      : workspace.readOnly.some((dir) => relative === dir || relative.startsWith(dir + path.sep))
        ? { code: 'EROFS', message: `EROFS: read-only file system, open '${file}'` }
        : undefined
    if (denied) {
      trace.denials.push(denied)
      throw Object.assign(new Error(denied.message), { code: denied.code })
    }
    fs.writeFileSync(path.join(workspace.root, relative), String(data))
    trace.ownEffects.push(`writeFileSync ${file}`)
  }
  realm.require = (name: string) => {
    if (name === 'node:fs' || name === 'fs') return { writeFileSync }
    throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' })
  }
}

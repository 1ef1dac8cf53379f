/**
 * Kernel refusals met by the program's own Node calls, reported to the host even when the program catches
 * them: the entry points of fs, fs/promises and child_process are wrapped once, before any program runs,
 * and each refusal is named by the one denial table (sandbox/workspace/denials.ts). A child's refusal is
 * read from its stderr where the program gets it whole. The same wrappers note the program's own effects
 * (files changed through node:fs, processes started), so a session's restore can say what running its
 * programs again did again (runtime/session-restore.ts).
 *
 * This is the one module of the runner that imports the live fs and child_process: the bundle gives every
 * other module a copy taken at load (runner-bundle.ts), so a workspace op's refusal is the tool's result,
 * never a denial of the program.
 */
import childProcess from 'node:child_process'
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { denialInStderr, denialOfErrno } from '../../workspace/denials.js'
import { DENIAL_TEXT_MAX, MAX_DENIALS, MAX_EFFECTS, type FromRunner } from '../wire-messages.js'

type Fn = (...args: unknown[]) => unknown
const fsp = fs.promises as unknown as Record<string, unknown>
// Captured: the program can reach this realm through Node and replace it.
const ReflectApply = Reflect.apply
let send: (msg: FromRunner) => void = () => {}

const reported = new WeakSet<object>()
const seenDenials = new Set<string>()
function noteDenial(e: unknown): void {
  if (e === null || typeof e !== 'object' || reported.has(e)) return
  const code = denialOfErrno((e as { code?: unknown }).code)
  if (code === undefined) return
  reported.add(e)
  const message = String((e as { message?: unknown }).message).slice(0, DENIAL_TEXT_MAX)
  const key = code + message
  if (seenDenials.has(key) || seenDenials.size >= MAX_DENIALS) return
  seenDenials.add(key)
  send({ type: 'denial', code, message })
}

/** A child's own refusal shows only in its stderr, in the shell's words. */
function noteStderr(stderr: unknown): void {
  if (stderr === null || stderr === undefined) return
  const text = typeof stderr === 'string' ? stderr : Buffer.isBuffer(stderr) ? stderr.toString('utf8') : ''
  const denied = denialInStderr(text)
  if (denied) noteDenial({ code: denied.code, message: denied.line })
}

// fs entry points that change the file system (their Sync and fs/promises forms too); `open` when its
// flags can write.
const CHANGES = new Set(
  'writeFile appendFile mkdir mkdtemp rm rmdir unlink rename copyFile cp symlink link truncate chmod lchmod chown lchown utimes lutimes createWriteStream'.split(
    ' ',
  ),
)
let effects: string[] = []
let moreEffects = 0
function noteEffect(what: string, target: unknown): void {
  let text: string
  try {
    text = `${what} ${String(target).slice(0, 200)}`
  } catch {
    text = what
  }
  if (effects.includes(text)) return
  if (effects.length < MAX_EFFECTS) effects.push(text)
  else moreEffects++
}

// Node's own fs functions call each other through the module (appendFileSync -> writeFileSync): only the
// program's call is its effect.
let depth = 0
function noteFsCall(key: string, args: unknown[]): void {
  if (depth > 0) return
  const name = key.endsWith('Sync') ? key.slice(0, -4) : key
  const flags = args[1]
  const writes =
    CHANGES.has(name) || (name === 'open' && flags !== undefined && typeof flags !== 'function' && !/^rs?$/.test(String(flags)))
  if (writes) noteEffect(key, args[0])
}

/** The effects noted since the last call (one run's), `+N more` past the cap. */
export function takeEffects(): string[] {
  const taken = moreEffects > 0 ? [...effects, `+${moreEffects} more`] : effects
  effects = []
  moreEffects = 0
  return taken
}

function copyExtras(from: Fn, to: Fn): Fn {
  const target = to as unknown as Record<symbol, unknown>
  for (const key of Object.getOwnPropertySymbols(from)) target[key] = (from as unknown as Record<symbol, unknown>)[key] // util.promisify.custom
  return to
}

/** Calls `fn`, noting a synchronous refusal; `depth` marks Node's own nested calls. */
function guarded(fn: Fn, self: unknown, args: unknown[], onThrow: (e: unknown) => void = noteDenial): unknown {
  depth++
  try {
    return ReflectApply(fn, self, args)
  } catch (e) {
    onThrow(e)
    throw e
  } finally {
    depth--
  }
}

function wrapSync(fn: Fn, key: string): Fn {
  return copyExtras(fn, function (this: unknown, ...args: unknown[]) {
    noteFsCall(key, args)
    return guarded(fn, this, args)
  })
}

function wrapCallback(fn: Fn, key: string): Fn {
  return copyExtras(fn, function (this: unknown, ...args: unknown[]) {
    noteFsCall(key, args)
    const last = args.length - 1
    const cb = args[last]
    if (typeof cb === 'function') {
      args[last] = function (this: unknown, err: unknown, ...rest: unknown[]) {
        noteDenial(err)
        return ReflectApply(cb, this, [err, ...rest])
      }
    }
    return guarded(fn, this, args)
  })
}

function wrapPromise(fn: Fn, key: string): Fn {
  return copyExtras(fn, function (this: unknown, ...args: unknown[]) {
    noteFsCall(key, args)
    const p = guarded(fn, this, args)
    return p !== null && typeof p === 'object' && typeof (p as Promise<unknown>).then === 'function'
      ? (p as Promise<unknown>).then(undefined, (e: unknown) => {
          noteDenial(e)
          throw e
        })
      : p
  })
}

function wrapChild(fn: Fn, key: string): Fn {
  return function (this: unknown, ...args: unknown[]) {
    noteEffect(key, args[0])
    const last = args.length - 1
    const cb = args[last]
    if (typeof cb === 'function') {
      // exec / execFile: (err, stdout, stderr)
      args[last] = function (this: unknown, err: unknown, stdout: unknown, stderr: unknown) {
        noteDenial(err)
        noteStderr(stderr)
        return ReflectApply(cb, this, [err, stdout, stderr])
      }
    }
    // execSync / execFileSync throw on a non-zero exit, with the child's stderr.
    const child = guarded(fn, this, args, (e) => {
      noteDenial(e)
      noteStderr((e as { stderr?: unknown } | null)?.stderr)
    }) as Record<string, unknown> | null
    if (child && typeof child.emit === 'function') {
      const emit = child.emit as Fn
      child.emit = function (this: unknown, event: unknown, ...rest: unknown[]) {
        if (event === 'error') noteDenial(rest[0])
        return ReflectApply(emit, this, [event, ...rest])
      }
    } else if (child && typeof child === 'object' && 'status' in child) {
      noteDenial(child.error) // spawnSync
      noteStderr(child.stderr)
    }
    return child
  }
}

/** Wrap the modules; `report` sends one message to the host. */
export function instrument(report: (msg: FromRunner) => void): void {
  send = report
  const fsx = fs as unknown as Record<string, unknown>
  for (const key of Object.keys(fsx)) {
    const fn = fsx[key]
    if (typeof fn !== 'function' || /^[A-Z]/.test(key) || key === 'watch' || key === 'watchFile') continue
    fsx[key] = key.endsWith('Sync') ? wrapSync(fn as Fn, key) : wrapCallback(fn as Fn, key)
  }
  for (const key of Object.keys(fsp)) {
    const fn = fsp[key]
    if (typeof fn === 'function' && key !== 'watch') fsp[key] = wrapPromise(fn as Fn, key)
  }
  const cp = childProcess as unknown as Record<string, Fn>
  for (const key of ['spawn', 'exec', 'execFile', 'fork', 'spawnSync', 'execSync', 'execFileSync']) cp[key] = wrapChild(cp[key] as Fn, key)
  syncBuiltinESMExports() // so `import('node:fs')` sees the same wrapped functions
}

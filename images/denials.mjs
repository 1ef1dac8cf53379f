// Kernel refusals (EROFS, EACCES, EPERM) met by the program's own Node calls, reported to the host even when
// the program catches them: the entry points of fs, fs/promises and child_process are wrapped once, before
// any program runs. A child's refusal is read from its stderr where the program gets it whole.
// The same wrappers note the program's own effects (files changed through node:fs, processes started), so
// a session's restore can say what running its programs again did again (runtime/session-restore.ts).
import { syncBuiltinESMExports } from 'node:module'
import fs from 'node:fs'
import childProcess from 'node:child_process'

const fsp = fs.promises
let send = () => {}
// Captured: the program can reach this realm through Node and replace them.
const ReflectApply = Reflect.apply

const DENIED = new Set(['EROFS', 'EACCES', 'EPERM'])
const reported = new WeakSet()
const seenDenials = new Set()
function noteDenial(e) {
  if (e === null || typeof e !== 'object' || !DENIED.has(e.code) || reported.has(e)) return
  reported.add(e)
  const message = String(e.message).slice(0, 500)
  const key = e.code + message
  if (seenDenials.has(key) || seenDenials.size >= 100) return
  seenDenials.add(key)
  send({ type: 'denial', code: e.code, message })
}
// fs entry points that change the file system (their Sync and fs/promises forms too); `open` when its
// flags can write.
const CHANGES = new Set([
  'writeFile',
  'appendFile',
  'mkdir',
  'mkdtemp',
  'rm',
  'rmdir',
  'unlink',
  'rename',
  'copyFile',
  'cp',
  'symlink',
  'link',
  'truncate',
  'chmod',
  'lchmod',
  'chown',
  'lchown',
  'utimes',
  'lutimes',
  'createWriteStream',
])
const MAX_EFFECTS = 20
let effects = []
let moreEffects = 0
function noteEffect(what, target) {
  let text
  try {
    text = what + ' ' + String(target).slice(0, 200)
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
function noteFsCall(key, args) {
  if (depth > 0) return
  const name = key.endsWith('Sync') ? key.slice(0, -4) : key
  const flags = args[1]
  const writes =
    CHANGES.has(name) || (name === 'open' && flags !== undefined && typeof flags !== 'function' && !/^rs?$/.test(String(flags)))
  if (writes) noteEffect(key, args[0])
}
/** The effects noted since the last call (one run's), `+N more` past the cap. */
export function takeEffects() {
  const taken = moreEffects > 0 ? [...effects, `+${moreEffects} more`] : effects
  effects = []
  moreEffects = 0
  return taken
}
function copyExtras(from, to) {
  for (const key of Object.getOwnPropertySymbols(from)) to[key] = from[key] // util.promisify.custom
  return to
}
function wrapSync(fn, key) {
  return copyExtras(fn, function (...args) {
    noteFsCall(key, args)
    depth++
    try {
      return ReflectApply(fn, this, args)
    } catch (e) {
      noteDenial(e)
      throw e
    } finally {
      depth--
    }
  })
}
function wrapCallback(fn, key) {
  return copyExtras(fn, function (...args) {
    noteFsCall(key, args)
    const last = args.length - 1
    const cb = args[last]
    if (typeof cb === 'function') {
      args[last] = function (err, ...rest) {
        noteDenial(err)
        return ReflectApply(cb, this, [err, ...rest])
      }
    }
    depth++
    try {
      return ReflectApply(fn, this, args)
    } catch (e) {
      noteDenial(e)
      throw e
    } finally {
      depth--
    }
  })
}
function wrapPromise(fn, key) {
  return copyExtras(fn, function (...args) {
    noteFsCall(key, args)
    let p
    depth++
    try {
      p = ReflectApply(fn, this, args)
    } catch (e) {
      noteDenial(e)
      throw e
    } finally {
      depth--
    }
    return p && typeof p.then === 'function'
      ? p.then(undefined, (e) => {
          noteDenial(e)
          throw e
        })
      : p
  })
}
// A child's own refusal shows only in its stderr, in the shell's words; read where the program gets it whole.
const STDERR_DENIAL = /^.*(Read-only file system|Permission denied|Operation not permitted).*$/m
const STDERR_CODE = { 'Read-only file system': 'EROFS', 'Permission denied': 'EACCES', 'Operation not permitted': 'EPERM' }
function noteStderr(stderr) {
  if (stderr === null || stderr === undefined) return
  const text = typeof stderr === 'string' ? stderr : Buffer.isBuffer(stderr) ? stderr.toString('utf8') : ''
  const m = STDERR_DENIAL.exec(text)
  if (m) noteDenial({ code: STDERR_CODE[m[1]], message: m[0].trim() })
}
function wrapChild(fn, key) {
  return function (...args) {
    noteEffect(key, args[0])
    const last = args.length - 1
    const cb = args[last]
    if (typeof cb === 'function') {
      // exec / execFile: (err, stdout, stderr)
      args[last] = function (err, stdout, stderr) {
        noteDenial(err)
        noteStderr(stderr)
        return ReflectApply(cb, this, [err, stdout, stderr])
      }
    }
    let child
    try {
      child = ReflectApply(fn, this, args)
    } catch (e) {
      noteDenial(e)
      noteStderr(e?.stderr) // execSync / execFileSync throw on a non-zero exit
      throw e
    }
    if (child && typeof child.emit === 'function') {
      const emit = child.emit
      child.emit = function (event, ...rest) {
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
export function instrument(report) {
  send = report
  for (const key of Object.keys(fs)) {
    const fn = fs[key]
    if (typeof fn !== 'function' || /^[A-Z]/.test(key) || key === 'watch' || key === 'watchFile') continue
    fs[key] = key.endsWith('Sync') ? wrapSync(fn, key) : wrapCallback(fn, key)
  }
  for (const key of Object.keys(fsp)) {
    if (typeof fsp[key] === 'function' && key !== 'watch') fsp[key] = wrapPromise(fsp[key], key)
  }
  for (const key of ['spawn', 'exec', 'execFile', 'fork']) childProcess[key] = wrapChild(childProcess[key], key)
  for (const key of ['spawnSync', 'execSync', 'execFileSync']) childProcess[key] = wrapChild(childProcess[key], key)
  syncBuiltinESMExports() // so `import('node:fs')` sees the same wrapped functions
}

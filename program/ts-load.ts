/**
 * Loads the TypeScript compiler (a 9 MB CommonJS file) with a V8 code cache, so a checker thread's start
 * does not compile it from scratch each process (Node 20 has no module.enableCompileCache).
 *
 * A code cache is code: V8 runs the bytecode in it and only checks that it was made by the same V8 for a
 * source of the same length. So it is read only from a private directory — owned by this user, mode 0700
 * (never a shared /tmp path) — and only a file this user owns, that no one else can write, not a symlink,
 * whose MAC (an HMAC with the key in codeact's state folder, vocabulary/state-folder.ts) matches: a program
 * whose workspace holds the cache directory (`--workspace ~`) can write a file there, but not sign it.
 * Anything else is ignored (TypeScript is compiled from source as without a cache), never loaded. The cache is written once, after a load without one (on the thread's first idle turn, so it
 * holds the functions the first work compiled), to a temporary file renamed into place.
 *
 * Where: `$CODEACT_CACHE_DIR`, else `$XDG_CACHE_HOME/codeact`, else `~/.cache/codeact`; `CODEACT_CACHE_DIR=off`
 * turns it off.
 */
import { createHash, createHmac } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { Script } from 'node:vm'
import type TS from 'typescript'
import { stateDir, stateKey } from '../vocabulary/state-folder.js'

export type CodeCacheState = 'loaded' | 'missing' | 'rejected' | 'ignored' | 'off'

export interface TypeScriptLoad {
  ts: typeof TS
  /** What happened to the code cache: used (`loaded`), none yet, refused by V8, or ignored (`why`). */
  cache: CodeCacheState
  why?: string
  /** Writes the cache now (normally done by a timer); resolves to the file written, or undefined. */
  save(): string | undefined
}

/**
 * After a load without a usable cache, the cache is written on the thread's first idle turn: after the
 * synchronous work that follows the load (the lib parse, often the first check), whose functions it then holds.
 */
const SAVE_AFTER_MS = 0
const SUM_BYTES = 32

/** The private cache directory, or undefined when it is off or cannot be made private. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.CODEACT_CACHE_DIR
  if (chosen === 'off' || chosen === '0') return undefined
  if (chosen) return chosen
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'codeact')
  try {
    return join(homedir(), '.cache', 'codeact')
  } catch {
    return undefined
  }
}

/** The directory exists (made 0700 when missing), is a directory this user owns, and only this user can enter it. */
function privateDirectory(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = lstatSync(dir)
    if (!st.isDirectory()) return 'the cache directory is not a directory'
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return 'the cache directory belongs to another user'
    if ((st.mode & 0o077) !== 0) return 'the cache directory is open to other users (it must be mode 0700)'
    return undefined
  } catch (e) {
    return `the cache directory cannot be used (${(e as Error).message})`
  }
}

/** The MAC a cache file starts with: an HMAC of its bytes with the state key (SUM_BYTES long). */
function macOf(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update('codeact code cache\0').update(data).digest()
}

/** The cache's bytes when the file is this user's, private, a regular file (not a link) and intact. */
function readCache(file: string, key: Buffer): { data?: Buffer; why?: string; replace?: boolean } {
  let fd: number
  try {
    // O_NONBLOCK: a named pipe at the path would block the open (and the thread) until a writer came; it is refused below.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? {} : { why: `the cache file cannot be opened (${code})` }
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return { why: 'the cache file is not a regular file' }
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { why: 'the cache file belongs to another user' }
    if ((st.mode & 0o022) !== 0) return { why: 'the cache file is writable by other users' }
    if (st.nlink !== 1) return { why: 'the cache file has other names (hard links)' }
    const bytes = readFileSync(fd)
    const data = bytes.subarray(SUM_BYTES)
    if (bytes.length <= SUM_BYTES || !macOf(key, data).equals(bytes.subarray(0, SUM_BYTES)))
      return { why: "the cache file is corrupt, or was not written by this user's codeact (its MAC does not match)", replace: true }
    return { data }
  } finally {
    closeSync(fd)
  }
}

function writeCache(dir: string, file: string, data: Buffer, key: Buffer): string | undefined {
  if (privateDirectory(dir) !== undefined) return undefined
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      writeSync(fd, macOf(key, data))
      writeSync(fd, data)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, file)
    return file
  } catch {
    return undefined
  }
}

/**
 * TypeScript, compiled with the code cache when a trustworthy one is there. Never throws for the cache's
 * sake: a cache problem only costs the compile time it would have saved.
 */
export function loadTypeScript(env: NodeJS.ProcessEnv = process.env): TypeScriptLoad {
  const require = createRequire(import.meta.url)
  const path = require.resolve('typescript')
  const dir = cacheDirectory(env)
  if (dir === undefined) return { ts: require('typescript') as typeof TS, cache: 'off', save: () => undefined }
  const version = (require('typescript/package.json') as { version: string }).version
  const compiled = compileWithCache(path, dir, `typescript-${version}`, env)
  let saved = false
  const save = () => {
    if (saved) return undefined
    saved = true
    return compiled.write()
  }
  if (compiled.wanted) setTimeout(save, SAVE_AFTER_MS).unref()
  const { cache, why } = compiled
  return { ts: compiled.exports as typeof TS, cache, ...(why !== undefined ? { why } : {}), save }
}

/** A CommonJS file compiled as Node's loader would (compileWithCache), and what its cache needs. */
interface CompiledWithCache {
  exports: unknown
  cache: CodeCacheState
  why?: string
  /**
   * The cache may be written: none was there, or V8 rejected it, or the file is this user's own and merely
   * corrupt — an ignored file that is foreign or a link is not this process's to replace (someone put it there).
   */
  wanted: boolean
  /** Writes V8's code cache of what has been compiled so far; the file written, or undefined. */
  write(): string | undefined
}

/**
 * The CommonJS file at `path` run in this context with its module's own require, exports and paths, compiled
 * with the code cache `<dir>/<name>-<key>.v8cache` when a trustworthy one is there (the key: the file's path,
 * size and time, Node's version and arch). Never throws for the cache's sake.
 */
export function compileWithCache(path: string, dir: string, name: string, env: NodeJS.ProcessEnv = process.env): CompiledWithCache {
  const source = readFileSync(path, 'utf8')
  const st = statSync(path)
  const key = createHash('sha256')
    .update(`${path}\n${st.size}\n${st.mtimeMs}\n${process.version}\n${process.arch}`)
    .digest('hex')
    .slice(0, 16)
  const file = join(dir, `${name}-${key}.v8cache`)
  const signing = stateKey(stateDir(undefined, env))
  const unusable = signing.ok ? privateDirectory(dir) : `no key to sign the cache with (${signing.message})`
  const read: ReturnType<typeof readCache> = unusable === undefined && signing.ok ? readCache(file, signing.value) : { why: unusable }
  // The CommonJS wrapper, as Node's loader makes it.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`
  const script = new Script(wrapped, { filename: path, ...(read.data ? { cachedData: read.data } : {}) })
  const module = { exports: {} as unknown }
  ;(script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(path),
    module,
    path,
    dirname(path),
  )
  const cache: CodeCacheState =
    read.why !== undefined ? 'ignored' : !read.data ? 'missing' : script.cachedDataRejected ? 'rejected' : 'loaded'
  return {
    exports: module.exports,
    cache,
    ...(read.why !== undefined ? { why: read.why } : {}),
    wanted: cache === 'missing' || cache === 'rejected' || read.replace === true,
    write: () => (unusable === undefined && signing.ok ? writeCache(dir, file, script.createCachedData(), signing.value) : undefined),
  }
}

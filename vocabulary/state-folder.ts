/**
 * codeact's state folder and the key that signs what crosses from one run to the next (staging journals,
 * event logs, code caches, the REPL history). A program can write only inside its workspace, so the folder
 * is never inside a workspace (nor a workspace inside it): then no program reads the key, and nothing it
 * writes anywhere can pass for something codeact wrote.
 *
 * Where: the `stateDir` option, else `$CODEACT_STATE_DIR`, else `$XDG_STATE_HOME/codeact`, else
 * `~/.local/state/codeact`. Made 0700; refused when it belongs to another user or others may write it.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve, sep } from 'node:path'

/** How to point codeact elsewhere, for every message that asks the user to. */
export const STATE_DIR_FIX = 'set CODEACT_STATE_DIR (the library: the stateDir option) to a folder outside every workspace'

export function stateDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit)
  if (env.CODEACT_STATE_DIR) return resolve(env.CODEACT_STATE_DIR)
  const xdg = env.XDG_STATE_HOME
  return join(xdg?.startsWith('/') ? xdg : join(homedir(), '.local', 'state'), 'codeact')
}

/** The real path `p` designates, existing or not (its deepest existing ancestor resolved). */
export function realOf(p: string): string {
  try {
    return realpathSync.native(p)
  } catch {
    const parent = dirname(p)
    return parent === p ? p : join(realOf(parent), basename(p))
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)
}

/**
 * Why `state` cannot serve a run on the workspace `root` (each by its real path), or undefined when it can:
 * a program could write the one, or the other would be written through the workspace.
 */
export function stateAgainstWorkspace(state: string, root: string): string | undefined {
  const [s, r] = [realOf(state), realOf(root)]
  if (within(s, r))
    return `codeact's state folder ${s} is inside the workspace ${r}: a program could forge what a later run trusts (journals, logs, the key); ${STATE_DIR_FIX}, or give a narrower workspace`
  if (within(r, s)) return `the workspace ${r} is inside codeact's state folder ${s}; ${STATE_DIR_FIX}, or choose another workspace`
  return undefined
}

export type StateResult<T> = { ok: true; value: T } | { ok: false; code: 'EACCES' | 'EIO'; message: string }

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined)

/** `dir` exists (made 0700 when missing), is a folder (not a link) of this user's that no one else may write. */
export function privateFolder(dir: string): StateResult<string> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = lstatSync(dir)
    if (!st.isDirectory()) return { ok: false, code: 'EACCES', message: `${dir} is not a folder (a link or a file); ${STATE_DIR_FIX}` }
    if (uid() !== undefined && st.uid !== uid())
      return { ok: false, code: 'EACCES', message: `${dir} belongs to another user (uid ${st.uid}); ${STATE_DIR_FIX}` }
    if ((st.mode & 0o022) !== 0)
      return {
        ok: false,
        code: 'EACCES',
        message: `${dir} may be written by other users (mode ${(st.mode & 0o777).toString(8)}); chmod 700 it`,
      }
    return { ok: true, value: dir }
  } catch (e) {
    return { ok: false, code: 'EIO', message: `cannot use the state folder ${dir}: ${(e as Error).message}; ${STATE_DIR_FIX}` }
  }
}

const KEY = 'key'
const KEY_BYTES = 32
const keys = new Map<string, Buffer>()

/** This user's signing key in `state`, made (0600) on first use. Never a link, never someone else's file. */
export function stateKey(state: string): StateResult<Buffer> {
  const held = keys.get(state)
  if (held) return { ok: true, value: held }
  const folder = privateFolder(state)
  if (!folder.ok) return folder
  const file = join(state, KEY)
  const read = readKey(file)
  if (read !== 'missing') {
    if (read.ok) keys.set(state, read.value)
    return read
  }
  // Made beside and linked into place: two starts at once end up with the same key (the first link wins).
  const temp = join(state, `.key.${process.pid}.${randomBytes(6).toString('hex')}`)
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      writeSync(fd, randomBytes(KEY_BYTES))
    } finally {
      closeSync(fd)
    }
    try {
      linkSync(temp, file)
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e
    }
  } catch (e) {
    return { ok: false, code: 'EIO', message: `cannot make the key ${file}: ${(e as Error).message}; ${STATE_DIR_FIX}` }
  } finally {
    try {
      unlinkSync(temp)
    } catch {
      // not made
    }
  }
  const made = readKey(file)
  if (made === 'missing') return { ok: false, code: 'EIO', message: `the key ${file} vanished as it was made; ${STATE_DIR_FIX}` }
  if (made.ok) keys.set(state, made.value)
  return made
}

function readKey(file: string): StateResult<Buffer> | 'missing' {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code === 'ENOENT') return 'missing'
    if (code === 'ELOOP')
      return {
        ok: false,
        code: 'EACCES',
        message: `the key ${file} is a symlink; codeact does not follow it (remove it: a new key is made)`,
      }
    return { ok: false, code: 'EIO', message: `cannot open the key ${file} (${code})` }
  }
  try {
    const st = fstatSync(fd)
    const refuse = (why: string): StateResult<Buffer> => ({
      ok: false,
      code: 'EACCES',
      message: `the key ${file} ${why}; codeact does not trust it (remove it: a new key is made)`,
    })
    if (!st.isFile()) return refuse('is not a regular file')
    if (uid() !== undefined && st.uid !== uid()) return refuse(`belongs to another user (uid ${st.uid})`)
    if ((st.mode & 0o077) !== 0) return refuse(`may be read by other users (mode ${(st.mode & 0o777).toString(8)})`)
    const key = readFileSync(fd)
    if (key.length !== KEY_BYTES) return refuse(`holds ${key.length} bytes, not ${KEY_BYTES}`)
    return { ok: true, value: key }
  } finally {
    closeSync(fd)
  }
}

/** Each key imported once: a log signs every line, and importing the key is most of an HMAC's cost. */
const keyObjects = new WeakMap<Buffer, KeyObject>()

/** HMAC-SHA-256 of `parts` for one `purpose` (a journal's MAC never passes for a log line's), hex. */
export function macOf(key: Buffer, purpose: string, ...parts: string[]): string {
  let imported = keyObjects.get(key)
  if (!imported) keyObjects.set(key, (imported = createSecretKey(key)))
  return createHmac('sha256', imported)
    .update([purpose, ...parts].join('\0'))
    .digest('hex')
}

/** Compares two hex MACs in constant time. */
export function sameMac(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')]
  return x.length === y.length && timingSafeEqual(x, y)
}

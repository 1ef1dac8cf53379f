/**
 * What the shared checker (checker-daemon.ts) and its clients (checker-client.ts) agree on: where its socket
 * is, who may talk to it, and how messages are framed.
 *
 * Where: `<state folder>/checker/<identity>.sock` (vocabulary/state-folder.ts), a folder of this user's that
 * only this user may enter (mode 0700, checked before every bind and connect: a socket in a folder others
 * may enter or write is never used). The identity is a hash of everything that decides a diagnostic — the
 * build's files (dist/program, dist/vocabulary: names, sizes, times), TypeScript's and @types/node's
 * versions, Node's version and binary — so a daemon of another build, install or Node line is never asked.
 *
 * Who: each side proves it holds the state folder's key before anything is parsed (an HMAC over both sides'
 * nonces and the identity). Another user cannot enter the folder, and could not answer without the key; a
 * socket someone else left there is refused, and the check then runs in the caller's own process.
 *
 * Frames: a 4-byte length and a V8-serialised value (what a worker's postMessage carries), at most MAX_FRAME.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deserialize, serialize } from 'node:v8'
import { privateFolder, stateDir, stateKey } from '../vocabulary/state-folder.js'

/** A request or answer larger than this ends the connection (a program is at most 512 KiB; an SDK a few MB). */
export const MAX_FRAME = 64 * 1024 * 1024
export const NONCE_BYTES = 32
export const MAC_BYTES = 32
/** A unix socket's path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100

export interface CheckerPlace {
  /** The socket's path. */
  socket: string
  /** The daemon's entry (the built checker-daemon.js). */
  entry: string
  /** The state folder whose key both sides prove. */
  state: string
  key: Buffer
  identity: string
}

/** The built daemon entry: beside this file when built, else the build's copy under `<repo>/dist` (vitest). */
function builtDir(): string | undefined {
  const beside = fileURLToPath(new URL('.', import.meta.url))
  try {
    statSync(join(beside, 'checker-daemon.js'))
    return beside
  } catch {
    const built = fileURLToPath(new URL('../dist/program/', import.meta.url))
    try {
      statSync(join(built, 'checker-daemon.js'))
      return built
    } catch {
      return undefined
    }
  }
}

/** What decides a diagnostic, hashed: this build's files and the compiler's, Node's version and binary. */
function identityOf(dir: string): string {
  const hash = createHash('sha256')
  hash.update(`codeact checker identity\n${process.version}\n${process.execPath}\n${process.arch}\n${dir}\n`)
  for (const sub of [dir, join(dir, '..', 'vocabulary')])
    for (const name of readdirSync(sub).sort()) {
      if (!name.endsWith('.js')) continue
      const st = statSync(join(sub, name))
      hash.update(`${name}\0${st.size}\0${st.mtimeMs}\n`)
    }
  const require = createRequire(join(dir, 'checker-daemon.js'))
  for (const pkg of ['typescript/package.json', 'typescript/lib/typescript.js', '@types/node/package.json']) {
    try {
      const file = require.resolve(pkg)
      const st = statSync(file)
      hash.update(`${file}\0${st.size}\0${st.mtimeMs}\n`)
    } catch {
      hash.update(`${pkg}: none\n`)
    }
  }
  return hash.digest('hex').slice(0, 24)
}

/** This build's identity as its files are now (undefined: not built); a daemon of an older build leaves. */
export function identityNow(): string | undefined {
  const dir = builtDir()
  try {
    return dir === undefined ? undefined : identityOf(dir)
  } catch {
    return undefined
  }
}

/** The folder of sockets exists, is this user's, and no one else may enter it (else undefined: no daemon). */
function socketFolder(state: string): string | { why: string } {
  const dir = join(state, 'checker')
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return { why: (e as Error).message }
  }
  const st = lstatSync(dir)
  if (!st.isDirectory()) return { why: `${dir} is not a folder` }
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { why: `${dir} belongs to another user` }
  if ((st.mode & 0o077) !== 0) return { why: `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})` }
  return dir
}

/** Where this build's daemon listens for this user, or why there is none (the check then stays in-process). */
export function checkerPlace(env: NodeJS.ProcessEnv = process.env): CheckerPlace | { why: string } {
  if (env.CODEACT_CHECKER_DAEMON === 'off' || env.CODEACT_CHECKER_DAEMON === '0') return { why: 'CODEACT_CHECKER_DAEMON=off' }
  const dir = builtDir()
  if (dir === undefined) return { why: 'the shared checker is not built (run `npm run build`)' }
  try {
    const state = stateDir(undefined, env)
    const folder = privateFolder(state)
    if (!folder.ok) return { why: folder.message }
    const key = stateKey(state)
    if (!key.ok) return { why: key.message }
    const sockets = socketFolder(state)
    if (typeof sockets !== 'string') return sockets
    const identity = identityOf(dir)
    const socket = join(sockets, `${identity}.sock`)
    if (socket.length > MAX_SOCKET_PATH) return { why: `the socket path ${socket} is too long for a unix socket` }
    return { socket, entry: join(dir, 'checker-daemon.js'), state, key: key.value, identity }
  } catch (e) {
    return { why: (e as Error).message }
  }
}

/** The MAC one side sends: over who it is (`side`), both nonces (the other side's first) and the identity. */
export function handshakeMac(
  place: Pick<CheckerPlace, 'key' | 'identity'>,
  side: 'client' | 'daemon',
  theirs: Buffer,
  mine: Buffer,
): Buffer {
  return createHmac('sha256', place.key).update(`codeact checker ${side}\0${place.identity}\0`).update(theirs).update(mine).digest()
}

export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

export const newNonce = (): Buffer => randomBytes(NONCE_BYTES)

export function frame(value: unknown): Buffer {
  const body = serialize(value)
  const head = Buffer.alloc(4)
  head.writeUInt32BE(body.length)
  return Buffer.concat([head, body])
}

/**
 * Reads a stream's bytes: first `exact` raw chunks (the handshake), then frames, each given to `onFrame`
 * deserialised. `onBad` is told once when a frame is too large or does not deserialise (the connection ends).
 */
export class FrameReader {
  #buffer: Buffer = Buffer.alloc(0)
  #raw: { bytes: number; take: (b: Buffer) => void }[] = []
  #bad = false

  constructor(
    private readonly onFrame: (value: unknown) => void,
    private readonly onBad: (why: string) => void,
  ) {}

  /** The next `bytes` raw bytes go to `take` (a handshake step) instead of the frame parser. */
  expectRaw(bytes: number, take: (b: Buffer) => void): void {
    this.#raw.push({ bytes, take })
  }

  push(chunk: Buffer): void {
    if (this.#bad) return
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    for (;;) {
      const raw = this.#raw[0]
      if (raw !== undefined) {
        if (this.#buffer.length < raw.bytes) return
        this.#raw.shift()
        const taken = this.#buffer.subarray(0, raw.bytes)
        this.#buffer = this.#buffer.subarray(raw.bytes)
        raw.take(taken)
        if (this.#bad) return
        continue
      }
      if (this.#buffer.length < 4) return
      const length = this.#buffer.readUInt32BE(0)
      if (length > MAX_FRAME) return this.#fail(`a frame of ${length} bytes is over ${MAX_FRAME}`)
      if (this.#buffer.length < 4 + length) return
      const body = this.#buffer.subarray(4, 4 + length)
      this.#buffer = this.#buffer.subarray(4 + length)
      let value: unknown
      try {
        value = deserialize(body)
      } catch (e) {
        return this.#fail(`a frame does not deserialise (${(e as Error).message})`)
      }
      this.onFrame(value)
    }
  }

  /** Stops reading (the connection is being ended). */
  stop(): void {
    this.#bad = true
  }

  #fail(why: string): void {
    this.#bad = true
    this.onBad(why)
  }
}

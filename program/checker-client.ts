/**
 * A process's way to the shared checker (checker-daemon.ts), with its own pool (typecheck-pool.ts) behind it.
 *
 * Opt-in per process (`shareChecker`, which the CLI calls: its process lives for one program, so its own
 * cold checker would be most of the run; a library's long-lived runtime keeps its threads warm itself).
 * Then each check-on request goes to this user's daemon for this build, started if none answers; anything
 * that goes wrong on the way — no private folder, no key, a daemon that does not start, does not prove the
 * key, drops the connection or says something malformed — sends the request to the process's own pool, as
 * without sharing. The daemon only ever makes a check faster: its answers are the pool's own.
 *
 * `CODEACT_CHECKER_DAEMON=off` turns sharing off.
 */
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import type { CheckerMessage, CheckerRequest } from './checker-protocol.js'
import {
  type CheckerPlace,
  checkerPlace,
  FrameReader,
  frame,
  handshakeMac,
  MAC_BYTES,
  newNonce,
  NONCE_BYTES,
  sameBytes,
} from './checker-wire.js'
import { checkInPool, type PoolAnswer, type PreparedParts, warmPool } from './typecheck-pool.js'
import type { CheckRequest } from './typecheck-protocol.js'

/** A started daemon says ready within this, else the check stays in-process. */
const START_TIMEOUT_MS = 30_000
/** Connecting and the handshake take at most this (a daemon is local: milliseconds when it is there). */
const CONNECT_TIMEOUT_MS = 5_000
/**
 * A request the daemon has not answered after this much more than its stages' budgets (preparing, the check,
 * a thread's start) goes to this process's own pool: a stopped or wedged daemon never holds a run.
 */
const ANSWER_GRACE_MS = 60_000

interface Pending {
  resolve(answer: PoolAnswer | undefined): void
  onPrepared?: (parts: PreparedParts) => void
  /** Nobody waits on it (a warm-up ahead of need): it never keeps the process alive. */
  background?: boolean
}

interface Connection {
  /** Sends a request; the returned function forgets it (its answer, if it comes, is dropped). */
  send(request: CheckerRequest, pending: Pending): () => void
}

let sharing: NodeJS.ProcessEnv | undefined
let connecting: Promise<Connection | undefined> | undefined
/** Why this process checks in its own pool although sharing is on (tests, `codeact` diagnostics). */
let localWhy: string | undefined
let nextId = 0

/** Check-on requests of this process go to the shared checker from now on (the CLI calls it first thing). */
export function shareChecker(env: NodeJS.ProcessEnv = process.env): void {
  sharing ??= env
}

/** How this process checks: `shared` (through the daemon), `local` (its own pool, and why), or `off` (not asked). */
export function sharedCheckerState(): { state: 'shared' | 'local' | 'off'; why?: string } {
  if (sharing === undefined) return { state: 'off' }
  return localWhy === undefined ? { state: 'shared' } : { state: 'local', why: localWhy }
}

/** Connects (starting the daemon when none answers); undefined: check in this process. Once per process. */
export function connectShared(): Promise<Connection | undefined> {
  if (sharing === undefined) return Promise.resolve(undefined)
  connecting ??= open(sharing).then((c) => {
    if ('why' in c) {
      localWhy = c.why
      return undefined
    }
    return c
  })
  return connecting
}

/** checkInPool (typecheck-pool.ts), through the shared checker when this process shares it. */
export async function checkShared(
  declarations: string | undefined,
  source: string,
  budgetMs: number,
  normalise?: CheckRequest['normalise'],
  nodeTypes = false,
  session?: { declarations: string },
  onPrepared?: (parts: PreparedParts) => void,
): Promise<PoolAnswer> {
  const local = (told?: (parts: PreparedParts) => void) => checkInPool(declarations, source, budgetMs, normalise, nodeTypes, session, told)
  if (declarations === undefined) return local(onPrepared)
  const connection = await connectShared()
  if (connection === undefined) return local(onPrepared)
  // The caller is told its prepared program once, whoever prepares it (the daemon, or this process after a lost daemon).
  let told = false
  const once = (parts: PreparedParts) => {
    if (told || onPrepared === undefined) return
    told = true
    onPrepared(parts)
  }
  const request: CheckerRequest = {
    id: ++nextId,
    kind: 'check',
    source,
    budgetMs,
    declarations,
    ...(normalise ? { normalise } : {}),
    ...(nodeTypes ? { nodeTypes } : {}),
    ...(session ? { session } : {}),
  }
  const answer = await ask(connection, request, 3 * budgetMs + ANSWER_GRACE_MS, { onPrepared: once })
  return answer ?? local(once)
}

/** warmPool, through the shared checker when this process shares it (`background`: never holds the process). */
export async function warmShared(declarations: string, nodeTypes = false, background = false): Promise<void> {
  const connection = await connectShared()
  if (connection === undefined) return warmPool(declarations, nodeTypes, background)
  const request: CheckerRequest = { id: ++nextId, kind: 'warm', declarations, ...(nodeTypes ? { nodeTypes } : {}) }
  const done = await ask(connection, request, ANSWER_GRACE_MS, { background })
  if (done === undefined) return warmPool(declarations, nodeTypes, background)
}

/** One request's answer; undefined when the connection is lost or no answer came within `waitMs`. */
function ask(
  connection: Connection,
  request: CheckerRequest,
  waitMs: number,
  how: Omit<Pending, 'resolve'>,
): Promise<PoolAnswer | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      forget()
      resolve(undefined)
    }, waitMs)
    if (how.background) timer.unref()
    const forget = connection.send(request, {
      ...how,
      resolve: (a) => {
        clearTimeout(timer)
        resolve(a)
      },
    })
  })
}

async function open(env: NodeJS.ProcessEnv): Promise<Connection | { why: string }> {
  const place = checkerPlace(env)
  if ('why' in place) return place
  const first = await handshake(place)
  if (!('why' in first) || !first.absent) return first
  const started = await startDaemon(place, env)
  if (started !== undefined) return { why: started }
  return handshake(place)
}

/** Connects and proves the key both ways; `absent`: nobody listens (the daemon may be started). */
function handshake(place: CheckerPlace): Promise<Connection | { why: string; absent?: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(place.socket)
    const fail = (why: string, absent = false) => {
      socket.destroy()
      resolve({ why, ...(absent ? { absent } : {}) })
    }
    const timer = setTimeout(() => fail('the shared checker did not answer'), CONNECT_TIMEOUT_MS)
    const mine = newNonce()
    const pending = new Map<number, Pending>()
    /** Requests someone waits on: while there are any, the socket keeps the process alive. */
    let held = 0
    const settle = (id: number) => {
      const p = pending.get(id)
      if (p === undefined) return
      pending.delete(id)
      if (!p.background && --held === 0) socket.unref()
    }
    const reader = new FrameReader(
      (value) => received(value as CheckerMessage),
      () => lost(),
    )
    const lost = () => {
      reader.stop()
      socket.destroy()
      for (const p of pending.values()) p.resolve(undefined)
      pending.clear()
    }
    const received = (m: CheckerMessage) => {
      const p = pending.get(m?.id)
      if (p === undefined) return
      if ('prepared' in m) return p.onPrepared?.(m.prepared)
      settle(m.id)
      p.resolve(m.answer)
    }
    reader.expectRaw(NONCE_BYTES, (theirs) => {
      socket.write(Buffer.concat([mine, handshakeMac(place, 'client', theirs, mine)]))
      reader.expectRaw(MAC_BYTES, (mac) => {
        clearTimeout(timer)
        if (!sameBytes(mac, handshakeMac(place, 'daemon', mine, theirs))) return fail('the shared checker did not prove the key')
        socket.unref() // an idle connection never holds the process
        socket.on('close', lost)
        resolve({
          send(request, p) {
            if (socket.destroyed) {
              p.resolve(undefined)
              return () => {}
            }
            pending.set(request.id, p)
            if (!p.background && held++ === 0) socket.ref()
            socket.write(frame(request))
            return () => settle(request.id)
          },
        })
      })
    })
    socket.on('data', (chunk: Buffer) => reader.push(chunk))
    socket.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      lost()
      fail(`cannot reach the shared checker (${e.code ?? e.message})`, e.code === 'ENOENT' || e.code === 'ECONNREFUSED')
    })
  })
}

/** Starts the daemon, detached (it outlives this process until idle), and waits for its ready; undefined: ready. */
function startDaemon(place: CheckerPlace, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const pass = ['PATH', 'HOME', 'CODEACT_CACHE_DIR', 'XDG_CACHE_HOME', 'CODEACT_CHECKER_DAEMON_IDLE_MS', 'CODEACT_CHECKER_IDLE_MS']
  const childEnv: NodeJS.ProcessEnv = { CODEACT_STATE_DIR: place.state }
  for (const name of pass) if (env[name] !== undefined) childEnv[name] = env[name]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [place.entry], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: childEnv,
      cwd: place.state,
    })
    let said = ''
    const timer = setTimeout(() => finish('the shared checker did not start in time'), START_TIMEOUT_MS)
    const finish = (why?: string) => {
      clearTimeout(timer)
      child.stdout?.destroy()
      child.unref()
      resolve(why)
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString()
      const line = said.split('\n')[0] ?? ''
      if (!said.includes('\n')) return
      finish(line === 'ready' ? undefined : `the shared checker did not start (${line.replace(/^no: /, '')})`)
    })
    child.once('error', (e) => finish(`the shared checker did not start (${e.message})`))
    child.once('exit', (code) => finish(`the shared checker stopped as it started (exit ${code})`))
  })
}

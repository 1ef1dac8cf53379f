/**
 * The shared checker: one process per user and build that keeps warm checker threads (typecheck-pool.ts)
 * for every `codeact run` of that user, so a CLI process — which lives for one program — does not load
 * TypeScript and parse and bind the lib (and Node's types, for Docker) for its one check: most of a cold
 * checked run's time. Started by the first client that finds none (checker-client.ts), detached, and ended
 * when no client has connected for `CODEACT_CHECKER_DAEMON_IDLE_MS` (default 10 minutes), when its socket
 * is removed or replaced, or when the build it was started from changes (checked every few seconds).
 *
 * Each request is served by the same pool, in the same way, as in the caller's own process: the same
 * budgets (a check past its budget ends its thread, `budget`), the same answers; nothing of one caller's
 * program reaches another's. Who may connect and where the socket lives: checker-wire.ts.
 *
 * Run as `node checker-daemon.js`; prints `ready` on stdout once it (or another daemon already there)
 * serves the socket, or `no: WHY` and exits 1.
 */
import { lstatSync, unlinkSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import type { CheckerMessage, CheckerRequest } from './checker-protocol.js'
import {
  type CheckerPlace,
  checkerPlace,
  FrameReader,
  identityNow,
  frame,
  handshakeMac,
  MAC_BYTES,
  NONCE_BYTES,
  newNonce,
  sameBytes,
} from './checker-wire.js'
import { checkInPool, holdChecker, warmPool } from './typecheck-pool.js'

const IDLE_MS = 10 * 60_000
/** How often the daemon looks whether its socket is still its own (removed or replaced: it exits). */
const WATCH_MS = 3_000
/** A connection must prove the key within this, else it is ended. */
const HANDSHAKE_MS = 5_000
/** A check may take at most this long in the daemon's thread, whatever its caller asked. */
const MAX_BUDGET_MS = 120_000
/** Requests in flight per connection, and connections at once: past them the connection is ended. */
const MAX_IN_FLIGHT = 64
const MAX_CONNECTIONS = 256

const idleMs = (): number => {
  const set = Number(process.env.CODEACT_CHECKER_DAEMON_IDLE_MS)
  return Number.isFinite(set) && set > 0 ? set : IDLE_MS
}

function say(line: string): void {
  process.stdout.write(`${line}\n`)
}

/** Serves one connection: the handshake, then requests answered in frames. */
function serve(place: CheckerPlace, socket: Socket, done: () => void): void {
  let proven = false
  let inFlight = 0
  const end = () => {
    reader.stop()
    socket.destroy()
  }
  const timer = setTimeout(() => proven || end(), HANDSHAKE_MS)
  const mine = newNonce()
  const reader = new FrameReader(
    (value) => (proven ? request(value as CheckerRequest) : end()),
    () => end(),
  )
  reader.expectRaw(NONCE_BYTES + MAC_BYTES, (bytes) => {
    const theirs = bytes.subarray(0, NONCE_BYTES)
    if (!sameBytes(bytes.subarray(NONCE_BYTES), handshakeMac(place, 'client', mine, theirs))) return end()
    proven = true
    clearTimeout(timer)
    socket.write(handshakeMac(place, 'daemon', theirs, mine))
  })
  const send = (message: CheckerMessage) => {
    if (!socket.destroyed) socket.write(frame(message))
  }
  const request = (r: CheckerRequest) => {
    if (typeof r?.id !== 'number' || ++inFlight > MAX_IN_FLIGHT) return end()
    const answered = (m: CheckerMessage) => {
      inFlight--
      send(m)
    }
    if (r.kind === 'warm') {
      void warmPool(String(r.declarations), r.nodeTypes === true).then(() => answered({ id: r.id, answer: { ok: true, diagnostics: [] } }))
      return
    }
    const budget = Math.min(Math.max(1, Number(r.budgetMs) || 1), MAX_BUDGET_MS)
    void checkInPool(r.declarations, String(r.source), budget, r.normalise, r.nodeTypes === true, r.session, (prepared) =>
      send({ id: r.id, prepared }),
    ).then((answer) => answered({ id: r.id, answer }))
  }
  socket.on('data', (chunk: Buffer) => reader.push(chunk))
  socket.on('error', () => end())
  socket.on('close', () => {
    clearTimeout(timer)
    done()
  })
  socket.write(mine)
}

/** Listens on the socket; an earlier daemon still serving it wins (this one only says ready and leaves). */
function listen(place: CheckerPlace, server: Server, retried = false): void {
  server.once('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EADDRINUSE' || retried) return leave(`cannot listen on ${place.socket} (${e.message})`)
    const probe = connect(place.socket)
    probe.once('connect', () => {
      probe.destroy()
      say('ready')
      process.exit(0)
    })
    probe.once('error', () => {
      // Nobody answers: a socket left by a daemon that died. Replace it (a racing daemon may too: the one
      // whose socket is not at the path any more sees it and leaves, see watch).
      unlinkQuietly(place.socket)
      listen(place, server, true)
    })
  })
  server.listen({ path: place.socket, readableAll: false, writableAll: false }, () => started(place, server))
}

function started(place: CheckerPlace, server: Server): void {
  const own = lstatSync(place.socket).ino
  const pidFile = place.socket.replace(/\.sock$/, '.pid')
  try {
    writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 })
  } catch {
    // only a convenience for whoever wants to stop it
  }
  const release = holdChecker()
  void warmPool('') // the lib parsed before the first caller's check, which brought this daemon up
  let last = Date.now()
  let open = 0
  server.on('connection', (socket) => {
    if (open >= MAX_CONNECTIONS) {
      socket.destroy()
      return
    }
    open++
    last = Date.now()
    serve(place, socket, () => {
      open--
      last = Date.now()
    })
  })
  setInterval(
    () => {
      let ours = false
      try {
        ours = lstatSync(place.socket).ino === own
      } catch {
        ours = false
      }
      // Rebuilt or reinstalled: its answers may no longer be the build's, and no client will ask it again.
      const stale = identityNow() !== place.identity
      if (!ours || stale || (open === 0 && Date.now() - last > idleMs())) {
        release()
        // Only its own socket: a path another daemon has taken over is that one's.
        if (ours) {
          unlinkQuietly(place.socket)
          unlinkQuietly(pidFile)
        }
        process.exit(0)
      }
    },
    Math.min(WATCH_MS, idleMs()),
  )
  say('ready')
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // gone meanwhile
  }
}

function leave(why: string): never {
  say(`no: ${why}`)
  process.exit(1)
}

process.stdout.on('error', () => {}) // the client that started it may be gone; its pipe with it
const place = checkerPlace()
if ('why' in place) leave(place.why)
listen(place, createServer())

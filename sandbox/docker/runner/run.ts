/**
 * The runner's runs: the realm made from the prelude while the container waits in the pool, one program
 * per container — or, in a session's own container, the session's programs one after another in one realm —
 * each ended by exactly one `done` or `unhandled` message carrying the effects its program had.
 */
import { arm, disarm, GRACE_MS } from './deadline.js'
import { createRealm, warmUp, type ProgramRealm as Realm } from './realm.js'
import { errorFields, newRun, type Ending, type RunState } from './bridge.js'
import { takeEffects } from './instrument.js'
import { diagnostic, own, send, setNonce, slice, toJson } from './wire.js'

const StringCtor = String
const ReflectApply = Reflect.apply
const setImmediateFn = setImmediate
const nextTick = process.nextTick
const BufferFrom = Buffer.from
const bufferToString = Buffer.prototype.toString

let realm: Realm | undefined
let state: RunState | undefined
let runs = 0
/** Set by the first run: a session container runs its session's programs one after another in one realm. */
let sessionContainer = false

export function current(): RunState | undefined {
  return state
}

/** `ready` is said again only until the host has sent the prelude. */
export function readyToPrepare(): boolean {
  return realm === undefined && runs === 0
}

function finish(run: RunState, msg: Ending): void {
  if (run.finished) return
  run.flush()
  run.finished = true
  // A session's container waits for its next run; a single-use one stays armed until it is removed.
  if (sessionContainer) disarm()
  const effects = takeEffects()
  send(effects.length > 0 ? { ...msg, effects } : msg)
}

export function fail(run: RunState, e: unknown): void {
  finish(run, { type: 'done', outcomeJson: toJson({ ok: false, error: errorFields(e), droppedOutputBytes: 0 }) })
}

export function unhandled(e: unknown): void {
  if (state !== undefined && !state.finished) finish(state, { type: 'unhandled', error: errorFields(e) })
}

type ProgramConsole = Record<string, (...args: unknown[]) => void>

/** Route the program's stray output (this realm's console, process.stdout/stderr) through its capped console. */
function redirectOutput(programConsole: ProgramConsole): void {
  const runnerConsole = console as unknown as ProgramConsole
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    runnerConsole[level] = (...args: unknown[]) => ReflectApply(programConsole[level] as () => void, programConsole, args)
  }
  const writer =
    (level: string) =>
    (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
      const text = typeof chunk === 'string' ? chunk : (ReflectApply(bufferToString, BufferFrom(chunk as Uint8Array), ['utf8']) as string)
      ;(programConsole[level] as (t: string) => void)(text.endsWith('\n') ? slice(text, 0, -1) : text)
      const callback = typeof encoding === 'function' ? encoding : cb
      if (typeof callback === 'function') nextTick(callback as () => void)
      return true
    }
  process.stdout.write = writer('log') as typeof process.stdout.write
  process.stderr.write = writer('error') as typeof process.stderr.write
}

/**
 * The prelude arrives once, right after `ready`; its realm is made while the container waits in the pool,
 * after a warm-up run in a throwaway realm — skipped when the program is already here (a cold start sends
 * `prepare` and `run` together), so it never delays one.
 */
export function prepare(msg: unknown): void {
  const prelude = StringCtor(own(msg, 'prelude'))
  // The host is attached: its end closes this container's stdin, and the idle runner exits (wire.ts).
  if (runs === 0) disarm()
  setImmediateFn(() => {
    if (runs > 0) return
    try {
      warmUp(prelude)
    } catch (e) {
      diagnostic(`warm-up failed: ${errorFields(e).message}`)
    }
  })
  try {
    realm = createRealm(prelude)
  } catch (e) {
    send({ type: 'fatal', message: `the prelude failed: ${errorFields(e).message}` })
  }
}

/** The realm's view of the run's configuration (JSON text). */
function configOf(msg: unknown, session: boolean): string {
  const entropy = own(msg, 'entropy')
  return toJson({
    toolNames: own(msg, 'toolNames'),
    maxOutputBytes: own(msg, 'maxOutputBytes'),
    ...(session ? { session: true } : {}),
    ...(entropy !== undefined ? { entropy } : {}),
  })
}

export function run(msg: unknown): void {
  const session = own(msg, 'session') === true
  // One program per container, except in a session's own container, whose runs the host sends one at a time.
  if (runs > 0 && !(sessionContainer && session)) return send({ type: 'fatal', message: 'this container already ran a program' })
  if (state !== undefined && !state.finished) return send({ type: 'fatal', message: 'a program is still running' })
  if (runs === 0) sessionContainer = session
  runs++
  takeEffects() // whatever an earlier run's leftovers did is not this run's
  const run = newRun()
  state = run
  const nonce = own(msg, 'nonce')
  if (typeof nonce === 'string') setNonce(nonce)
  if (typeof own(msg, 'prelude') === 'string') prepare(msg)
  if (realm === undefined) return send({ type: 'fatal', message: 'no prelude was sent' })
  let bridge: RunState['bridge']
  try {
    const seed = own(own(msg, 'entropy'), 'seed')
    bridge = realm.bind(run.call, run.log, configOf(msg, session), typeof seed === 'string' ? seed : undefined)
    run.bridge = bridge
  } catch (e) {
    return send({ type: 'fatal', message: `the prelude failed: ${errorFields(e).message}` })
  }
  // One turn later: a rejection the program left unhandled is reported (after the microtasks) first.
  const done = (outcome: unknown) => {
    if (typeof outcome !== 'string') return fail(run, outcome)
    setImmediateFn(() => finish(run, { type: 'done', outcomeJson: outcome }))
  }
  // The container ends itself a grace after the host's deadline, should the host be gone (deadline.ts).
  const deadlineMs = own(msg, 'deadlineMs')
  const js = StringCtor(own(msg, 'js'))
  arm(typeof deadlineMs === 'number' ? deadlineMs + GRACE_MS : undefined, () => bridge.start(js, redirectOutput, done))
}

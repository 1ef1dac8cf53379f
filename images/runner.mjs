// codeact runner: the one process of a codeact container. It speaks line-delimited JSON with the host on
// stdio (wire.mjs; stderr is free text for diagnostics), runs one program in a realm of its own
// (realm.mjs) with the in-sandbox prelude the host sends — or, in a session's own container, each of the
// session's programs in turn in that one realm — and serves workspace ops on the mounted
// workspace. Plain JS, no dependencies: copied into the image as is. The container is the security
// boundary; this file only makes the run observable (tool calls, console, kernel denials, the outcome).
import { randomUUID } from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import v8 from 'node:v8'

// A heap snapshot holds every string of this process, the run's nonce among them: refused before any
// program exists (`v8` is one object for every realm and every require). The inspector is refused by the
// permission model (the image's entrypoint); the runner's memory is closed to other processes because the
// node binary is execute-only (images/build.sh), which makes this process non-dumpable.
for (const name of ['getHeapSnapshot', 'writeHeapSnapshot', 'setHeapSnapshotNearHeapLimit']) {
  v8[name] = function refused() {
    const e = new Error(`v8.${name}() is not available in a codeact program`)
    e.code = 'ERR_ACCESS_DENIED'
    throw e
  }
}
syncBuiltinESMExports()

// The runner's own modules are loaded under a URL no program can guess: Node keeps one module instance per
// URL, and `require('/opt/codeact/wire.mjs')` (or an import of it) from a program would otherwise hand out the
// very instance that holds the run's nonce. A program that loads the plain path gets fresh, unwired copies.
const secretUrl = (file) => new URL(`./${file}?instance=${randomUUID()}`, import.meta.url).href
const [{ arm, disarm, GRACE_MS }, { instrument, takeEffects }, { cancelOp, serveOp }, { createRealm, warmUp }, wire] = await Promise.all([
  import(secretUrl('deadline.mjs')),
  import(secretUrl('denials.mjs')),
  import(secretUrl('ops.mjs')),
  import(secretUrl('realm.mjs')),
  import(secretUrl('wire.mjs')),
])
const { append, diagnostic, own, receive, send, setNonce, slice, toJson } = wire

const ReflectApply = Reflect.apply
const StringCtor = String
const setImmediateFn = setImmediate
const nextTick = process.nextTick
const BufferFrom = Buffer.from
const bufferToString = Buffer.prototype.toString
const onProcess = process.on.bind(process)

// --- one run's bridge -------------------------------------------------------------------------------
// Each run has its own state: a session container runs many programs in one realm, and whatever an earlier
// run left behind (a closure holding its `tools`, a timer) reaches only its own, finished, run — never the
// current one's call ids or console.
let current
function newRun() {
  // No prototype: an earlier run of the session cannot plant a setter for these names on Object.prototype.
  const state = {
    __proto__: null,
    finished: false,
    bridge: undefined,
    logBatch: [],
    logBytes: 0,
    flushScheduled: false,
    flush: undefined,
    log: undefined,
    call: undefined,
  }
  state.flush = () => {
    state.flushScheduled = false
    if (state.logBatch.length === 0) return
    const entries = state.logBatch
    state.logBatch = []
    state.logBytes = 0
    send({ type: 'log', entries })
  }
  state.log = (level, text) => {
    if (state.finished || typeof level !== 'string' || typeof text !== 'string') return
    append(state.logBatch, { level, text })
    state.logBytes += text.length
    if (state.logBytes > 64 * 1024) state.flush()
    else if (!state.flushScheduled) {
      state.flushScheduled = true
      setImmediateFn(state.flush)
    }
  }
  state.call = (id, name, argsJson) => {
    if (typeof id !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
    if (state.finished) return // a call of a run that ended (the prelude routes a kept tool function to the current run)
    state.flush() // console lines written before the call reach the host before it
    send({ type: 'call', id, name, argsJson })
  }
  return state
}

// --- the run ----------------------------------------------------------------------------------------
let realm
let runs = 0
/** Set by the first run: a session container runs its session's programs one after another in one realm. */
let sessionContainer = false
function finish(state, msg) {
  if (state.finished) return
  state.flush()
  state.finished = true
  // A session's container waits for its next run; a single-use one stays armed until it is removed.
  if (sessionContainer) disarm()
  const effects = takeEffects()
  send(effects.length > 0 ? { ...msg, effects } : msg)
}
function errorFields(e) {
  let name = 'Error'
  let message = ''
  let stack
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      name = StringCtor(e.name || 'Error')
      message = StringCtor(e.message === undefined ? e : e.message)
      const s = e.stack
      if (typeof s === 'string') stack = slice(s, 0, 4000)
    } else {
      name = 'Thrown'
      message = StringCtor(e)
    }
  } catch {
    message = '[unprintable error]'
  }
  return { name: slice(name, 0, 200), message: slice(message, 0, 4000), stack }
}
function failWith(state, e) {
  finish(state, { type: 'done', outcomeJson: toJson({ ok: false, error: errorFields(e), droppedOutputBytes: 0 }) })
}

/** Route the program's stray output (this realm's console, process.stdout/stderr) through its capped console. */
function redirectOutput(programConsole) {
  const line =
    (level) =>
    (...args) =>
      ReflectApply(programConsole[level], programConsole, args)
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) console[level] = line(level)
  const writer = (level) => (chunk, encoding, cb) => {
    const text = typeof chunk === 'string' ? chunk : ReflectApply(bufferToString, BufferFrom(chunk), ['utf8'])
    programConsole[level](text.endsWith('\n') ? slice(text, 0, -1) : text)
    const callback = typeof encoding === 'function' ? encoding : cb
    if (typeof callback === 'function') nextTick(callback)
    return true
  }
  process.stdout.write = writer('log')
  process.stderr.write = writer('error')
}

// The prelude arrives once, right after `ready`; its realm is made while the container waits in the pool,
// after a warm-up run in a throwaway realm (realm.mjs) — skipped when the program is already here (a cold
// start sends `prepare` and `run` together), so it never delays one.
function prepare(msg) {
  const prelude = StringCtor(own(msg, 'prelude'))
  // The host is attached: its end closes this container's stdin, and the idle runner exits (wire.mjs).
  if (runs === 0) disarm()
  setImmediateFn(() => {
    if (runs > 0) return
    try {
      warmUp(prelude)
    } catch (e) {
      diagnostic('warm-up failed: ' + errorFields(e).message)
    }
  })
  try {
    realm = createRealm(prelude)
  } catch (e) {
    send({ type: 'fatal', message: 'the prelude failed: ' + errorFields(e).message })
  }
}

function run(msg) {
  const session = own(msg, 'session') === true
  // One program per container, except in a session's own container, whose runs the host sends one at a time.
  if (runs > 0 && !(sessionContainer && session)) return send({ type: 'fatal', message: 'this container already ran a program' })
  if (current !== undefined && !current.finished) return send({ type: 'fatal', message: 'a program is still running' })
  if (runs === 0) sessionContainer = session
  runs++
  takeEffects() // whatever an earlier run's leftovers did is not this run's
  const state = newRun()
  current = state
  const nonce = own(msg, 'nonce')
  if (typeof nonce === 'string') setNonce(nonce)
  if (typeof own(msg, 'prelude') === 'string') prepare(msg)
  if (realm === undefined) return send({ type: 'fatal', message: 'no prelude was sent' })
  try {
    const entropy = own(msg, 'entropy')
    const config = toJson({
      toolNames: own(msg, 'toolNames'),
      maxOutputBytes: own(msg, 'maxOutputBytes'),
      ...(session ? { session: true } : {}),
      ...(entropy !== undefined ? { entropy } : {}),
    })
    const seed = own(entropy, 'seed')
    state.bridge = realm.bind(state.call, state.log, config, typeof seed === 'string' ? seed : undefined)
  } catch (e) {
    return send({ type: 'fatal', message: 'the prelude failed: ' + errorFields(e).message })
  }
  // One turn later: a rejection the program left unhandled is reported (after the microtasks) first.
  const done = (outcome) => {
    if (typeof outcome !== 'string') return failWith(state, outcome)
    setImmediateFn(() => finish(state, { type: 'done', outcomeJson: outcome }))
  }
  // The container ends itself a grace after the host's deadline, should the host be gone (deadline.mjs).
  const deadlineMs = own(msg, 'deadlineMs')
  const js = StringCtor(own(msg, 'js'))
  arm(typeof deadlineMs === 'number' ? deadlineMs + GRACE_MS : undefined, () => state.bridge.start(js, redirectOutput, done))
}

onProcess('uncaughtException', (e) => {
  if (current !== undefined && !current.finished) failWith(current, e)
  else diagnostic('uncaught ' + errorFields(e).message)
})
// Like Node (and the isolate), a rejection the program leaves unhandled fails the run, named as such.
onProcess('unhandledRejection', (e) => {
  if (current !== undefined && !current.finished) finish(current, { type: 'unhandled', error: errorFields(e) })
})

// --- host messages ----------------------------------------------------------------------------------
function onMessage(msg) {
  switch (own(msg, 'type')) {
    case 'hello':
      // Asked again only until the host has heard `ready` (it then sends the prelude).
      return realm === undefined && runs === 0 ? sayReady() : undefined
    case 'prepare':
      return prepare(msg)
    case 'run':
      return run(msg)
    case 'result':
      if (current?.bridge && !current.finished) current.bridge.deliver(own(msg, 'id'), StringCtor(own(msg, 'resultJson')))
      return
    case 'op':
      return serveOp(msg, send)
    case 'cancel':
      return cancelOp(own(msg, 'id'))
    default:
      diagnostic('unknown message type ' + StringCtor(own(msg, 'type')))
  }
}
receive(onMessage)

// Done before `ready`, while the container is still warming: the program's fs / child_process calls are
// observed for kernel denials.
instrument(send)
function sayReady() {
  send({ type: 'ready', node: process.version, uid: process.getuid(), pid: process.pid })
}
// Said at once, and again to each `hello`: output written in the instant after start can miss the attach.
sayReady()

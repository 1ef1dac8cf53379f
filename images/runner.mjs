// codeact runner: the one process of a codeact container. It speaks line-delimited JSON with the host on
// stdio (wire.mjs; stderr is free text for diagnostics), runs one program in a realm of its own
// (realm.mjs) with the in-sandbox prelude the host sends, and serves workspace ops on the mounted
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
const [{ instrument }, { cancelOp, serveOp }, { createRealm }, wire] = await Promise.all([
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

// --- console batching -------------------------------------------------------------------------------
let logBatch = []
let logBytes = 0
let flushScheduled = false
function flushLogs() {
  flushScheduled = false
  if (logBatch.length === 0) return
  const entries = logBatch
  logBatch = []
  logBytes = 0
  send({ type: 'log', entries })
}
function hostLog(level, text) {
  if (finished || typeof level !== 'string' || typeof text !== 'string') return
  append(logBatch, { level, text })
  logBytes += text.length
  if (logBytes > 64 * 1024) flushLogs()
  else if (!flushScheduled) {
    flushScheduled = true
    setImmediateFn(flushLogs)
  }
}
function hostCall(id, name, argsJson) {
  if (finished || typeof id !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
  flushLogs() // console lines written before the call reach the host before it
  send({ type: 'call', id, name, argsJson })
}

// --- the run ----------------------------------------------------------------------------------------
let realm
let bridge
let started = false
let finished = false
function finish(msg) {
  if (finished) return
  flushLogs()
  finished = true
  send(msg)
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
function failWith(e) {
  finish({ type: 'done', outcomeJson: toJson({ ok: false, error: errorFields(e), droppedOutputBytes: 0 }) })
}
function done(outcome) {
  if (typeof outcome !== 'string') return failWith(outcome)
  // One turn later: a rejection the program left unhandled is reported (after the microtasks) first.
  setImmediateFn(() => finish({ type: 'done', outcomeJson: outcome }))
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

// The prelude arrives once, right after `ready`; its realm is made while the container waits in the pool.
function prepare(msg) {
  try {
    realm = createRealm(StringCtor(own(msg, 'prelude')))
  } catch (e) {
    send({ type: 'fatal', message: 'the prelude failed: ' + errorFields(e).message })
  }
}

function run(msg) {
  if (started) return send({ type: 'fatal', message: 'this container already ran a program' })
  started = true
  const nonce = own(msg, 'nonce')
  if (typeof nonce === 'string') setNonce(nonce)
  if (typeof own(msg, 'prelude') === 'string') prepare(msg)
  if (realm === undefined) return send({ type: 'fatal', message: 'no prelude was sent' })
  try {
    const config = toJson({ toolNames: own(msg, 'toolNames'), maxOutputBytes: own(msg, 'maxOutputBytes') })
    bridge = realm.bind(hostCall, hostLog, config)
  } catch (e) {
    return send({ type: 'fatal', message: 'the prelude failed: ' + errorFields(e).message })
  }
  bridge.start(StringCtor(own(msg, 'js')), redirectOutput, done)
}

onProcess('uncaughtException', (e) => {
  if (started && !finished) failWith(e)
  else diagnostic('uncaught ' + errorFields(e).message)
})
// Like Node (and the isolate), a rejection the program leaves unhandled fails the run, named as such.
onProcess('unhandledRejection', (e) => {
  if (started && !finished) finish({ type: 'unhandled', error: errorFields(e) })
})

// --- host messages ----------------------------------------------------------------------------------
function onMessage(msg) {
  switch (own(msg, 'type')) {
    case 'hello':
      // Asked again only until the host has heard `ready` (it then sends the prelude).
      return realm === undefined && !started ? sayReady() : undefined
    case 'prepare':
      return prepare(msg)
    case 'run':
      return run(msg)
    case 'result':
      if (bridge && !finished) bridge.deliver(own(msg, 'id'), StringCtor(own(msg, 'resultJson')))
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

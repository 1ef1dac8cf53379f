/**
 * codeact runner: the one process of a codeact container, bundled into one file at image build
 * (runner-bundle.ts). It speaks line-delimited JSON with the host on stdio (wire.ts; stderr is free text for
 * diagnostics), runs one program in a realm of its own with the in-sandbox prelude the host sends — or, in
 * a session's own container, each of the session's programs in turn in that one realm — and serves
 * workspace ops on the mounted workspace (ops.ts). The container is the security boundary; this only
 * makes the run observable (tool calls, console, kernel denials, the outcome).
 */
import { syncBuiltinESMExports } from 'node:module'
import v8 from 'node:v8'
import { startGuards } from './deadline.js'
import { instrument } from './instrument.js'
import { cancelOp, serveOp } from './ops.js'
import { current, fail, prepare, readyToPrepare, run, unhandled } from './run.js'
import { diagnostic, own, receive, send } from './wire.js'
import { errorFields } from './bridge.js'

// One runner per process: a program that loads the bundle again (under another URL: a query string) gets
// a module that stops here, not a second reader of stdin serving every op twice. The mark cannot be removed.
const ONE_RUNNER = Symbol.for('codeact.runner')
if (Object.hasOwn(globalThis, ONE_RUNNER)) throw new Error('the codeact runner is already running in this process')
Object.defineProperty(globalThis, ONE_RUNNER, { value: true, configurable: false, enumerable: false, writable: false })

// A heap snapshot holds every string of this process, the run's nonce among them: refused before any
// program exists (`v8` is one object for every realm and every require). The inspector is refused by the
// permission model (the image's entrypoint); the runner's memory is closed to other processes because the
// node binary is execute-only (images/build.sh), which makes this process non-dumpable.
const v8Functions = v8 as unknown as Record<string, unknown>
for (const name of ['getHeapSnapshot', 'writeHeapSnapshot', 'setHeapSnapshotNearHeapLimit']) {
  v8Functions[name] = function refused() {
    const e = new Error(`v8.${name}() is not available in a codeact program`) as Error & { code: string }
    e.code = 'ERR_ACCESS_DENIED'
    throw e
  }
}
syncBuiltinESMExports()
startGuards()

const StringCtor = String
const onProcess = process.on.bind(process)

onProcess('uncaughtException', (e) => {
  const state = current()
  if (state !== undefined && !state.finished) fail(state, e)
  else diagnostic(`uncaught ${errorFields(e).message}`)
})
// Like Node (and the isolate), a rejection the program leaves unhandled fails the run, named as such.
onProcess('unhandledRejection', (e) => unhandled(e))

function sayReady(): void {
  send({ type: 'ready', node: process.version, uid: process.getuid?.() ?? -1, pid: process.pid })
}

function onMessage(msg: unknown): void {
  switch (own(msg, 'type')) {
    case 'hello':
      // Asked again only until the host has heard `ready` (it then sends the prelude).
      return readyToPrepare() ? sayReady() : undefined
    case 'prepare':
      return prepare(msg)
    case 'run':
      return run(msg)
    case 'result': {
      const state = current()
      if (state?.bridge && !state.finished) state.bridge.deliver(own(msg, 'id'), StringCtor(own(msg, 'resultJson')))
      return
    }
    case 'op':
      return serveOp(msg, send)
    case 'cancel':
      return cancelOp(own(msg, 'id'))
    default:
      diagnostic(`unknown message type ${StringCtor(own(msg, 'type'))}`)
  }
}
receive(onMessage)

// Done before `ready`, while the container is still warming: the program's fs / child_process calls are
// observed for kernel denials.
instrument(send)
// Said at once, and again to each `hello`: output written in the instant after start can miss the attach.
sayReady()

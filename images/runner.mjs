// codeact runner: the one process of a codeact container. It speaks line-delimited JSON with the host on
// stdio (host -> runner on stdin, runner -> host on stdout; stderr is free text for diagnostics), runs one
// program with the in-sandbox prelude the host sends, and serves workspace ops on the mounted workspace.
// Plain JS, no dependencies: it is copied into the image as is. The container is the security boundary;
// this file only makes the run observable (tool calls, console, kernel denials, the outcome).
import { createRequire } from 'node:module'
import vm from 'node:vm'
import { serveOp, cancelOp } from './ops.mjs'
import { instrument } from './denials.mjs'

// The protocol owns fd 1; the program's writes to stdout are redirected to its console below.
const stdout = process.stdout
const writeOut = stdout.write.bind(stdout)
const stringify = JSON.stringify
// Each message starts on a fresh line, so a partial line the program left on fd 1 cannot swallow it.
function send(msg) {
  writeOut('\n' + stringify(msg) + '\n')
}

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
  logBatch.push({ level, text })
  logBytes += text.length
  if (logBytes > 64 * 1024) flushLogs()
  else if (!flushScheduled) {
    flushScheduled = true
    setImmediate(flushLogs)
  }
}

// --- tool calls -------------------------------------------------------------------------------------
let nextCallId = 1
const pendingCalls = new Map()
function hostCall(name, argsJson) {
  const id = nextCallId++
  flushLogs() // console lines written before the call reach the host before it
  return new Promise((resolve) => {
    pendingCalls.set(id, resolve)
    send({ type: 'call', id, name, argsJson })
  })
}

// --- the run ----------------------------------------------------------------------------------------
let started = false
let finished = false
function finish(outcomeJson) {
  if (finished) return
  finished = true
  flushLogs()
  send({ type: 'done', outcomeJson })
}
function describe(e) {
  const isObj = e !== null && typeof e === 'object'
  return {
    name: String((isObj && e.name) || 'Error').slice(0, 200),
    message: String(isObj ? e.message : e).slice(0, 4000),
    stack: isObj && typeof e.stack === 'string' ? e.stack.slice(0, 4000) : undefined,
  }
}

/** Route the program's stray output (global console, process.stdout/stderr) through its capped console. */
function redirectOutput(programConsole) {
  const line = (level) => (...args) => Reflect.apply(programConsole[level], programConsole, args)
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) console[level] = line(level)
  const writer = (level) => function (chunk, encoding, cb) {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    programConsole[level](text.endsWith('\n') ? text.slice(0, -1) : text)
    const done = typeof encoding === 'function' ? encoding : cb
    if (typeof done === 'function') process.nextTick(done)
    return true
  }
  process.stdout.write = writer('log')
  process.stderr.write = writer('error')
}

// The prelude arrives once, right after `ready`, and is compiled while the container waits in the pool.
let preludeFn
function prepare(msg) {
  try {
    preludeFn = vm.runInThisContext(msg.prelude, { filename: 'prelude.js' })
  } catch (e) {
    send({ type: 'fatal', message: 'the prelude failed: ' + describe(e).message })
  }
}

function run(msg) {
  if (started) return send({ type: 'fatal', message: 'this container already ran a program' })
  started = true
  if (typeof msg.prelude === 'string') prepare(msg)
  if (typeof preludeFn !== 'function') return send({ type: 'fatal', message: 'no prelude was sent' })
  let runProgram
  try {
    runProgram = preludeFn(hostCall, hostLog, { toolNames: msg.toolNames, maxOutputBytes: msg.maxOutputBytes })
  } catch (e) {
    return send({ type: 'fatal', message: 'the prelude failed: ' + describe(e).message })
  }
  let programFn
  try {
    programFn = vm.runInThisContext(msg.js, {
      filename: 'program.js',
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    })
  } catch (e) {
    programFn = () => { throw e }
  }
  const wrapped = (tools, ToolCallError, programConsole) => {
    redirectOutput(programConsole)
    return programFn(tools, ToolCallError, programConsole)
  }
  runProgram(wrapped).then(finish, (e) => finish(stringify({ ok: false, error: describe(e), droppedOutputBytes: 0 })))
}

process.on('uncaughtException', (e) => {
  if (started && !finished) finish(stringify({ ok: false, error: describe(e), droppedOutputBytes: 0 }))
  else process.stderr.write('runner: uncaught ' + describe(e).message + '\n')
})
process.on('unhandledRejection', (e) => {
  // Node would crash; a fire-and-forget failure in the program is reported, not fatal.
  if (started && !finished) hostLog('error', 'Unhandled promise rejection: ' + describe(e).message)
})

// --- stdin: host messages ---------------------------------------------------------------------------
function onMessage(msg) {
  switch (msg.type) {
    case 'hello':
      return sayReady()
    case 'prepare':
      return prepare(msg)
    case 'run':
      return run(msg)
    case 'result': {
      const resolve = pendingCalls.get(msg.id)
      pendingCalls.delete(msg.id)
      if (resolve) resolve(String(msg.resultJson))
      return
    }
    case 'op':
      return serveOp(msg, send)
    case 'cancel':
      return cancelOp(msg.id)
    default:
      process.stderr.write('runner: unknown message type ' + String(msg.type) + '\n')
  }
}
let buffered = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  buffered += chunk
  let nl
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl)
    buffered = buffered.slice(nl + 1)
    if (line.length === 0) continue
    let msg
    try {
      msg = JSON.parse(line)
    } catch {
      process.stderr.write('runner: unreadable message\n')
      continue
    }
    onMessage(msg)
  }
})
// The host detached (closed or crashed): nothing can observe this container any more.
process.stdin.on('end', () => process.exit(0))

// Done before `ready`, while the container is still warming: the program gets real Node (`require`,
// `import()`), confined by the container, with its fs / child_process calls observed for denials.
globalThis.require = createRequire(process.cwd() + '/')
instrument(send)
function sayReady() {
  send({ type: 'ready', node: process.version, uid: process.getuid(), pid: process.pid })
}
// Said at once, and again to each `hello`: output written in the instant after start can miss the attach.
sayReady()

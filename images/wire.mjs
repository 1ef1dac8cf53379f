// The runner's end of the wire: line-delimited JSON with the host (host -> runner on stdin, runner -> host
// on stdout). The program can reach this realm's intrinsics (through `process`, `require`, `Buffer`), so
// everything the wire uses is captured here, at load, before any program exists, and messages are copied
// into prototype-less objects before they are encoded: a program that patches JSON, Array.prototype or a
// `toJSON` on Object.prototype cannot bend them.
const ReflectApply = Reflect.apply
const JSONstringify = JSON.stringify
const JSONparse = JSON.parse
const ObjectKeys = Object.keys
const ObjectHasOwn = Object.hasOwn
const ObjectDefineProperty = Object.defineProperty
const ObjectCreate = Object.create
const ObjectSetPrototypeOf = Object.setPrototypeOf
const ArrayIsArray = Array.isArray
const NumberIsFinite = Number.isFinite
const stringIndexOf = String.prototype.indexOf
const stringSlice = String.prototype.slice
const writeOut = process.stdout.write.bind(process.stdout)
const writeErr = process.stderr.write.bind(process.stderr)
const exit = process.exit.bind(process)
const stdin = process.stdin
const onStdin = stdin.on.bind(stdin)

/** Own property of a parsed message, or undefined (never an inherited, possibly planted, one). */
export function own(obj, key) {
  return obj !== null && typeof obj === 'object' && ObjectHasOwn(obj, key) ? obj[key] : undefined
}

/** Append without `push` and without running a setter planted on Array.prototype. */
export function append(list, value) {
  ObjectDefineProperty(list, list.length, { __proto__: null, value, writable: true, enumerable: true, configurable: true })
}

export function slice(text, start, end) {
  return ReflectApply(stringSlice, text, [start, end])
}

/**
 * A copy of plain data (strings, numbers, booleans, null, arrays, objects) whose objects and arrays have no
 * prototype, so JSON.stringify finds no planted `toJSON` and reads no inherited index; the text it makes is
 * one flat string (cheap to queue on a slow pipe).
 */
function bare(v, depth) {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !NumberIsFinite(v) ? null : v
  if (depth > 64) return null
  if (ArrayIsArray(v)) {
    const out = []
    ObjectSetPrototypeOf(out, null)
    for (let i = 0; i < v.length; i++) out[i] = bare(v[i], depth + 1)
    return out
  }
  const out = ObjectCreate(null)
  const keys = ObjectKeys(v)
  for (let i = 0; i < keys.length; i++) out[keys[i]] = bare(v[keys[i]], depth + 1)
  return out
}
/** JSON text of plain data, immune to anything planted on this realm's prototypes. */
export function toJson(value) {
  return JSONstringify(bare(value, 0))
}

// Set from the run message. The host drops every line of a run that does not start with it, so a program
// writing protocol-looking lines to fd 1 is only noise. It lives in this module's scope, never in the
// program's realm.
let nonce = ''
export function setNonce(value) {
  nonce = value
}

/** Send one message. Each starts on a fresh line, so a partial line left on fd 1 cannot swallow it. */
export function send(msg) {
  writeOut('\n' + (nonce ? nonce + ' ' : '') + toJson(msg) + '\n')
}

export function diagnostic(text) {
  writeErr('runner: ' + text + '\n')
}

/**
 * Read the host's messages, one JSON object per line; the runner exits when the host detaches. Only the new
 * chunk is searched for the line's end, and a long line's chunks are joined once, when it ends: appending
 * each chunk to one buffer and searching that flattened the whole buffer per chunk — an 8 MiB tool result
 * in 64 KiB chunks made ~0.5 GB of garbage, which a 128 MB container under gVisor could not always absorb.
 */
export function receive(onMessage) {
  let parts = []
  stdin.setEncoding('utf8')
  onStdin('data', (chunk) => {
    let start = 0
    let nl
    while ((nl = ReflectApply(stringIndexOf, chunk, ['\n', start])) >= 0) {
      let line = ''
      for (let i = 0; i < parts.length; i++) line += parts[i]
      line += slice(chunk, start, nl)
      parts = []
      start = nl + 1
      if (line.length === 0) continue
      let msg
      try {
        msg = JSONparse(line)
      } catch {
        diagnostic('unreadable message')
        continue
      }
      onMessage(msg)
    }
    if (start < chunk.length) append(parts, start === 0 ? chunk : slice(chunk, start))
  })
  // The host detached (closed or crashed): nothing can observe this container any more.
  onStdin('end', () => exit(0))
}

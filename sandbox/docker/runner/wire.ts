/**
 * The runner's end of the wire (the messages and their framing: ../wire-messages.ts, which the host reads
 * too): line-delimited JSON, host -> runner on stdin, runner -> host on stdout. The program can reach this
 * realm's intrinsics (through `process`, `require`, `Buffer`), so everything the wire uses is captured at
 * load, before any program exists, and messages are copied into prototype-less objects before they are
 * encoded: a program that patches JSON, Array.prototype or a `toJSON` on Object.prototype cannot bend them.
 */
import { frameLine, type FromRunner } from '../wire-messages.js'

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
export function own(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' && ObjectHasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined
}

/** Append without `push` and without running a setter planted on Array.prototype. */
export function append<T>(list: T[], value: T): void {
  ObjectDefineProperty(list, list.length, {
    __proto__: null,
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  } as PropertyDescriptor)
}

export function slice(text: string, start: number, end?: number): string {
  return ReflectApply(stringSlice, text, [start, end]) as string
}

/**
 * A copy of plain data whose objects and arrays have no prototype, so JSON.stringify finds no planted
 * `toJSON` and reads no inherited index; the text it makes is one flat string (cheap to queue on a slow pipe).
 */
function bare(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !NumberIsFinite(v) ? null : v
  if (depth > 64) return null
  if (ArrayIsArray(v)) {
    const out: unknown[] = []
    ObjectSetPrototypeOf(out, null)
    for (let i = 0; i < v.length; i++) out[i] = bare(v[i], depth + 1)
    return out
  }
  const out = ObjectCreate(null) as Record<string, unknown>
  const keys = ObjectKeys(v)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    out[key] = bare((v as Record<string, unknown>)[key], depth + 1)
  }
  return out
}

/** JSON text of plain data, immune to anything planted on this realm's prototypes. */
export function toJson(value: unknown): string {
  return JSONstringify(bare(value, 0))
}

// Set from the run message. The host drops every line of a run that does not start with it, so a program
// writing protocol-looking lines to fd 1 is only noise. It lives in this module's scope, never in the
// program's realm (the bundle exports nothing a program could import).
let nonce = ''
export function setNonce(value: string): void {
  nonce = value
}

/** Send one message. */
export function send(msg: FromRunner): void {
  writeOut(frameLine(nonce, toJson(msg)))
}

export function diagnostic(text: string): void {
  writeErr(`runner: ${text}\n`)
}

/**
 * Read the host's messages, one JSON object per line; the runner exits when the host detaches. Only the new
 * chunk is searched for the line's end, and a long line's chunks are joined once, when it ends: appending
 * each chunk to one buffer and searching that flattens the whole buffer per chunk, garbage a small
 * container under gVisor cannot always absorb.
 */
export function receive(onMessage: (msg: unknown) => void): void {
  let parts: string[] = []
  stdin.setEncoding('utf8')
  onStdin('data', (chunk: string) => {
    let start = 0
    let nl = ReflectApply(stringIndexOf, chunk, ['\n', start]) as number
    while (nl >= 0) {
      let line = ''
      for (let i = 0; i < parts.length; i++) line += parts[i]
      line += slice(chunk, start, nl)
      parts = []
      start = nl + 1
      nl = ReflectApply(stringIndexOf, chunk, ['\n', start]) as number
      if (line.length === 0) continue
      let msg: unknown
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

/**
 * The program's `tools`: every call becomes JSON text to the host, every answer JSON text back. A failed
 * call rejects with the realm's one ToolCallError, its stack pointing at the program's line. An unknown
 * name still reaches the host, so a misspelled tool gets ENOSYS with the closest names, and is logged.
 */
import {
  type Any,
  ErrorCaptureStackTrace,
  ErrorCtor,
  JSONparse,
  JSONstringify,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  PromiseCtor,
  promiseThen,
  ProxyCtor,
  ReflectApply,
  StringCtor,
  stringIndexOf,
  stringSlice,
} from './intrinsics.js'
import { INVALID_ARGS_PREFIX } from './limits.js'
import type { RunState } from './run-state.js'
import { ToolCallError } from './tool-error.js'

/** The bridge's call: the JSON text of the arguments out, the JSON text of a ToolResult back. */
export type HostCall = (name: string, argsJson: string) => Promise<string>

// A session realm's current run's tools: a tool function kept from an ended run calls through them.
let currentRunTools: Any = null

function serializeArgs(args) {
  if (args === undefined) return '{}'
  try {
    const text = JSONstringify(args, (_k, v) => {
      if (typeof v === 'bigint') throw new ErrorCtor('a BigInt (' + StringCtor(v) + 'n) cannot be sent as JSON')
      return v
    })
    return text === undefined ? INVALID_ARGS_PREFIX + 'arguments must be a JSON object, got ' + typeof args : text
  } catch (e) {
    let why = 'not JSON'
    try {
      why = StringCtor((e as Any)?.message)
    } catch (_) {}
    return INVALID_ARGS_PREFIX + 'arguments are not JSON: ' + why
  }
}
/** The program's frames where the call was made, so an uncaught failed call names its line. */
// A few frames are enough to find the program's line, and capturing the default ten costs far more.
function callSite(fn) {
  const site = ObjectCreate(null)
  if (!ErrorCaptureStackTrace) return site
  const d = ObjectGetOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit')
  const plain = d !== undefined && ObjectHasOwn(d, 'value') && d.writable
  try {
    if (plain) ErrorCtor.stackTraceLimit = 4
    ErrorCaptureStackTrace(site, fn)
  } catch (_) {
  } finally {
    if (plain) ErrorCtor.stackTraceLimit = d.value
  }
  return site
}
const MAX_SITES = 256
function failedCall(name, code, message, site) {
  const e = new ToolCallError(name, code, message)
  if (site === undefined) return e
  // A program's own Error.prepareStackTrace decides what its stacks look like; then the stack is V8's.
  try {
    if (ErrorCtor.prepareStackTrace !== undefined) return e
    const frames = site.stack
    const at = typeof frames === 'string' ? ReflectApply(stringIndexOf, frames, ['\n']) : -1
    const stack = 'ToolCallError: ' + message + (at >= 0 ? ReflectApply(stringSlice, frames, [at]) : '')
    ObjectDefineProperty(e, 'stack', { __proto__: null, value: stack, enumerable: false, configurable: true, writable: true })
  } catch (_) {}
  return e
}

/** The run's `tools` object; a session realm's run makes its tools the ones a kept tool function calls. */
export function makeTools(run: RunState, hostCall: HostCall, toolNames: string[], inSession: boolean, maybeIdle: () => void): Any {
  function makeTool(name) {
    const fn = (args) => {
      if (run.completed && currentRunTools !== null && currentRunTools !== tools) return currentRunTools[name](args)
      const argsJson = serializeArgs(args)
      // A captured stack is kept until the call settles: only for the first calls in flight, so a flood of
      // 100,000 unawaited calls does not hold 100,000 stacks (a failed call in a flood has no line).
      const site = run.callsInFlight < MAX_SITES ? callSite(fn) : undefined
      return new PromiseCtor((resolve, reject) => {
        if (run.completed) {
          reject(failedCall(name, 'ESTALE', 'this tool function belongs to an earlier run; call tools.' + name + ' from this run', site))
          return
        }
        let pending
        try {
          pending = hostCall(name, argsJson)
        } catch {
          reject(failedCall(name, 'EIO', 'the tool bridge failed', site))
          return
        }
        run.callsInFlight++
        if (run.settled) run.callsLate++
        const done = () => {
          run.callsInFlight--
          maybeIdle()
        }
        ReflectApply(promiseThen, pending, [
          (text) => {
            done()
            let r
            try {
              r = JSONparse(text)
            } catch {
              reject(failedCall(name, 'EIO', 'unreadable tool result', site))
              return
            }
            if (r.ok) resolve(r.value)
            else reject(failedCall(name, StringCtor(r.error.code), StringCtor(r.error.message), site))
          },
          () => {
            done()
            reject(failedCall(name, 'EIO', 'the tool bridge failed', site))
          },
        ])
      })
    }
    ObjectDefineProperty(fn, 'name', { __proto__: null, value: name })
    return ObjectFreeze(fn)
  }
  const known = ObjectCreate(null)
  for (let i = 0; i < toolNames.length; i++) known[toolNames[i]] = makeTool(toolNames[i])
  ObjectFreeze(known)
  // Unknown names still reach the host, so a misspelled tool gets ENOSYS with the closest names, and is logged.
  const stubs = ObjectCreate(null)
  const tools = new ProxyCtor(known, {
    __proto__: null,
    get(target, key) {
      if (typeof key !== 'string') return undefined
      if (key in target) return target[key]
      if (key === 'then' || key === 'toJSON') return undefined
      return stubs[key] || (stubs[key] = makeTool(key))
    },
  } as Any)
  if (inSession) currentRunTools = tools
  return tools
}

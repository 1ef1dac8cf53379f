/**
 * The one path every tool call takes, whatever its origin:
 *   prepare (lookup, validate, pre-execute hooks) -> execute -> finish (post-execute hooks).
 * Each stage returns values; nothing here throws into the caller.
 */
import { closestNames } from '../program/suggest.js'
import type { Approvals } from './approval.js'
import { withCaller } from './ptc/callers.js'
import { type ArmedGroup, type Armable, armAtEndOfTurn, type Cancellation } from './call-arming.js'
import type { EventLog } from './event-log.js'
import type { Hooks } from './hooks.js'
import type { RegisteredTool, ToolRegistry } from './registry.js'
import type { HookMap, JsonValue, PreExecuteDecision, ToolCall, ToolContext, ToolError, ToolResult } from '../vocabulary/types.js'

export interface DispatchEnv {
  registry: ToolRegistry
  hooks: Hooks
  log: EventLog
  /** Backend services for tools (see `Sandbox.services`). */
  services(runId: string | undefined): Record<string, unknown>
  /** Default per-call deadline for tools without their own `timeoutMs`. */
  toolTimeoutMs: number
  /** Refuses a call before anything else (code mode refuses direct native calls of tools). */
  gate?: (call: ToolCall) => ToolError | undefined
  /** Where a hook's `{ ask }` waits for its answer; without it an ask is refused (nobody can answer). */
  approvals?: Approvals
}

export type Prepared = { ok: true; call: ToolCall; tool: RegisteredTool } | { ok: false; call: ToolCall; result: ToolResult }

export function failure(code: string, message: string): ToolResult {
  return { ok: false, error: { code, message } }
}

/** A call refused before dispatch (its arguments are not JSON): logged like any call, so the observation lists it. */
export function logUndispatched(env: DispatchEnv, call: ToolCall, result: ToolResult): ToolResult {
  env.log.append('tool/call', withCaller(call))
  env.log.append('tool/result', { id: call.id, name: call.name, result, durationMs: 0 })
  return result
}

/** Lookup, validation, then pre-execute hooks; synchronous when no hook is registered. */
export function prepare(env: DispatchEnv, call: ToolCall, signal?: AbortSignal): Prepared | Promise<Prepared> {
  const gated = env.gate?.(call)
  if (gated) return { ok: false, call, result: { ok: false, error: gated } }
  const tool = env.registry.get(call.name)
  if (!tool || (tool.nativeOnly && call.origin === 'code')) {
    const known = call.origin === 'code' ? env.registry.programNames() : env.registry.directNames()
    return { ok: false, call, result: failure('ENOSYS', unknownToolMessage(call.name, known)) }
  }
  if (tool.programOnly && call.origin === 'native') return { ok: false, call, result: failure('ENOSYS', programOnlyMessage(call.name)) }
  const checked = tool.validate(call.args)
  if (!checked.ok) return { ok: false, call, result: failure('EINVAL', `${call.name}: ${checked.message}`) }
  // A validator that did not change the arguments (JSON Schema's never does) keeps the call as it is: a copy per call was garbage.
  const current: ToolCall = checked.value === call.args ? call : { ...call, args: checked.value }
  const hooks = env.hooks.list('pre-execute')
  return hooks.length ? preExecute(env, hooks, current, tool, signal) : { ok: true, call: current, tool }
}

/**
 * The pre-execute hooks in order: synchronously while each answers synchronously (the workspace policy does:
 * no promise and no microtask per call), from the first that returns a promise or asks, asynchronously.
 */
function preExecute(
  env: DispatchEnv,
  hooks: readonly HookMap['pre-execute'][],
  call: ToolCall,
  tool: RegisteredTool,
  signal: AbortSignal | undefined,
): Prepared | Promise<Prepared> {
  let current = call
  for (let i = 0; i < hooks.length; i++) {
    let decision: PreExecuteDecision | Promise<PreExecuteDecision>
    try {
      decision = hooks[i]!(current)
    } catch (e) {
      return hookFailed(current, e)
    }
    if (isThenable(decision) || (decision && 'ask' in decision)) return preExecuteFrom(env, hooks, i, decision, current, tool, signal)
    if (decision && 'deny' in decision) return denied(current, decision.deny)
    if (decision && 'args' in decision) current = { ...current, args: decision.args }
  }
  return { ok: true, call: current, tool }
}

/** The hooks from `from` on, its decision `first` already made (perhaps still a promise). */
async function preExecuteFrom(
  env: DispatchEnv,
  hooks: readonly HookMap['pre-execute'][],
  from: number,
  first: PreExecuteDecision | Promise<PreExecuteDecision>,
  call: ToolCall,
  tool: RegisteredTool,
  signal: AbortSignal | undefined,
): Promise<Prepared> {
  let current = call
  for (let i = from; i < hooks.length; i++) {
    try {
      const decision = await (i === from ? first : hooks[i]!(current))
      if (decision && 'deny' in decision) return denied(current, decision.deny)
      if (decision && 'args' in decision) current = { ...current, args: decision.args }
      if (decision && 'ask' in decision) {
        // Waits here, inside the serial pre-execute stage: later calls' hooks wait for this answer too.
        const refused = env.approvals
          ? await env.approvals.request(current, decision.ask, signal)
          : { code: 'EACCES', message: 'not approved: a hook asked for approval and this runtime has no way to ask' }
        if (refused) return { ok: false, call: current, result: { ok: false, error: refused } }
      }
    } catch (e) {
      return hookFailed(current, e)
    }
  }
  return { ok: true, call: current, tool }
}

function denied(call: ToolCall, deny: ToolError): Prepared {
  return { ok: false, call, result: { ok: false, error: { code: String(deny.code), message: String(deny.message) } } }
}

function hookFailed(call: ToolCall, e: unknown): Prepared {
  return { ok: false, call, result: failure('EHOOK', `a pre-execute hook failed: ${messageOf(e)}`) }
}

/**
 * Runs the tool. A tool that answers synchronously is answered synchronously (no timer, no listener);
 * otherwise `execute` returns undefined and `settled` gets the result later (a callback, not a promise the
 * scheduler then awaits: two promises and a turn fewer per call). `ctx.signal`'s controller is made only
 * when the tool reads it, already aborted if the call was stopped.
 */
export function execute(
  env: DispatchEnv,
  prepared: Prepared & { ok: true },
  cancel: Cancellation,
  settled: (result: ToolResult) => void,
): ToolResult | undefined {
  const { call, tool } = prepared
  const run = new RunningCall(call, cancel, tool.definition.timeoutMs ?? env.toolTimeoutMs)
  const ctx = new CallContext(env, call, run)
  let returned: unknown
  try {
    returned = tool.definition.execute(call.args, ctx)
  } catch (e) {
    return { ok: false, error: errorOf(e) }
  }
  if (!isThenable(returned)) return answer(call, run.concludes, returned)
  run.resolve = settled
  // The deadline and the cancel listener come at the end of this turn, for the calls still open then
  // (call-arming.ts); a call still open gets its whole deadline from that moment, a cancel meanwhile is seen there.
  armAtEndOfTurn(run)
  Promise.resolve(returned).then(
    (value) => run.settle(answer(call, run.concludes, value)),
    (e: unknown) => run.settle({ ok: false, error: errorOf(e) }),
  )
  return undefined
}

/**
 * What a tool is given. A class, not an object literal: a literal with `get signal()` is slow to make (V8
 * defines an accessor on a fresh object through the runtime, each call), a class instance is not. `signal` is
 * the prototype's getter (its controller made when first read), so `{ ...ctx }` does not copy it.
 */
class CallContext implements ToolContext {
  readonly callId: string
  readonly parentId: string | undefined
  readonly origin: ToolCall['origin']
  readonly services: Readonly<Record<string, unknown>>
  readonly #run: RunningCall

  constructor(env: DispatchEnv, call: ToolCall, run: RunningCall) {
    this.callId = call.id
    this.parentId = call.parentId
    this.origin = call.origin
    this.#run = run
    const runId = call.parentId
    this.services = env.services(runId)
    // Own functions, as before: a tool may take them off the context (`const { concludeTurn } = ctx`).
    this.concludeTurn = () => void (run.concludes = true)
    this.reportDenial = (d) =>
      void env.log.append('denial', { ...(runId ? { runId } : {}), callId: call.id, code: String(d.code), message: String(d.message) })
  }

  readonly concludeTurn: () => void
  readonly reportDenial: (denial: ToolError) => void

  get signal(): AbortSignal {
    return this.#run.signal()
  }
}

/** A call's state while its tool runs: one object where there were a closure and its captured variables each. */
class RunningCall implements Armable {
  settled = false
  concludes = false
  group: ArmedGroup | undefined
  resolve: ((result: ToolResult) => void) | undefined
  #controller: AbortController | undefined
  #stopped: { reason: unknown } | undefined
  readonly #call: ToolCall

  constructor(
    call: ToolCall,
    readonly cancellation: Cancellation,
    readonly timeoutMs: number,
  ) {
    this.#call = call
  }

  signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#stopped) this.#controller.abort(this.#stopped.reason)
    }
    return this.#controller.signal
  }

  /** `later`: told in a microtask (a timeout or a cancel is not the scheduler's moment to commit in). */
  settle(result: ToolResult, later = false): void {
    if (this.settled) return
    this.settled = true
    this.group?.settled()
    const resolve = this.resolve
    if (!resolve) return
    if (later) queueMicrotask(() => resolve(result))
    else resolve(result)
  }

  expire(): void {
    if (!this.settled) this.#stop(new Error('timeout'), failure('ETIMEDOUT', `${this.#call.name} timed out after ${this.timeoutMs} ms`))
  }

  cancel(): void {
    if (!this.settled) this.#stop(this.cancellation.reason, failure('ECANCELED', `${this.#call.name} was cancelled`))
  }

  #stop(reason: unknown, result: ToolResult): void {
    this.#stopped = { reason }
    this.#controller?.abort(reason)
    this.settle(result, true)
  }
}

/** A tool's value as the call's result: JSON, or EIO for a value that is not. */
function answer(call: ToolCall, concludes: boolean, value: unknown): ToolResult {
  const json = toJson(value)
  if (!json.ok) return failure('EIO', `${call.name} returned a value that is not JSON (${json.why})`)
  const result: ToolResult = concludes ? { ok: true, value: json.value, concludesTurn: true } : { ok: true, value: json.value }
  if (json.text.length > KEEP_TEXT_CHARS)
    resultTexts.set(result, `{"ok":true,"value":${json.text}${concludes ? ',"concludesTurn":true' : ''}}`)
  return result
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

/** Post-execute hooks, in order; synchronous when none is registered. */
export function finish(env: DispatchEnv, call: ToolCall, result: ToolResult): ToolResult | Promise<ToolResult> {
  const hooks = env.hooks.list('post-execute')
  return hooks.length ? postExecute(hooks, call, result) : result
}

async function postExecute(hooks: readonly HookMap['post-execute'][], call: ToolCall, result: ToolResult): Promise<ToolResult> {
  // A hook may change the result in place: its kept text no longer says what the result is.
  resultTexts.delete(result)
  let current = result
  for (const hook of hooks) {
    try {
      const replaced = await hook(call, current)
      if (replaced && typeof replaced === 'object' && 'ok' in replaced) current = replaced
    } catch (e) {
      return failure('EHOOK', `a post-execute hook failed: ${messageOf(e)}`)
    }
  }
  return current
}

export function unknownToolMessage(name: string, known: readonly string[]): string {
  const near = closestNames(name, known)
  if (near.length) return `unknown tool "${name}"; did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?`
  const list = known.slice(0, 12).join(', ')
  return `unknown tool "${name}"; available: ${list || '(none)'}${known.length > 12 ? ', …' : ''}`
}

/** A direct call of a tool that only programs may call: where to call it instead. */
function programOnlyMessage(name: string): string {
  return `${name} can only be called from a program (allowedCallers: ["programmatic"]); call \`tools.${name}(…)\` inside run_code`
}

/** A thrown value -> `{ code, message }`: its own errno-style `code` when it has one. */
export function errorOf(e: unknown): ToolError {
  const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'ETOOL'
  return { code, message: messageOf(e) }
}

export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message
  if (typeof e === 'string') return e
  try {
    return JSON.stringify(e) ?? String(e)
  } catch {
    return String(e)
  }
}

/** The JSON of a tool that answers nothing (most side-effect tools), shared rather than made per call. */
const NULL_JSON = Object.freeze({ ok: true, value: null, text: 'null' } as const)

/** Normalises a tool's value to JSON: `undefined` becomes null; BigInt, cycles and the like are refused. */
export function toJson(value: unknown): { ok: true; value: JsonValue; text: string } | { ok: false; why: string } {
  if (value === undefined || value === null) return NULL_JSON
  // Primitives are their own copy; objects are copied through their JSON text (a tool's later change to the
  // object it returned reaches neither the log nor the program).
  if (typeof value === 'string' || typeof value === 'boolean') return { ok: true, value, text: JSON.stringify(value) }
  if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: value === 0 ? 0 : value, text: JSON.stringify(value) }
  try {
    const text = JSON.stringify(value)
    if (text === undefined) return { ok: true, value: null, text: 'null' }
    if (nestedPast(text, MAX_JSON_DEPTH)) return { ok: false, why: `nested deeper than ${MAX_JSON_DEPTH} levels` }
    return { ok: true, value: JSON.parse(text) as JsonValue, text }
  } catch (e) {
    return { ok: false, why: messageOf(e) }
  }
}

/**
 * Deeper than this a value is refused on every Node line: newer V8s parse and print JSON of any depth, but
 * the run's record would then hold a value that an embedder's JSON.stringify (or an older line) overflows on.
 */
const MAX_JSON_DEPTH = 5_000

/** Whether JSON text nests arrays and objects past `max` (only a text of at least 2·max characters can). */
function nestedPast(text: string, max: number): boolean {
  if (text.length < 2 * max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** Past this length a result's JSON text is kept for the sandbox, which would otherwise serialise the value again. */
const KEEP_TEXT_CHARS = 256
const resultTexts = new WeakMap<ToolResult, string>()

/** The JSON text of a committed result (`JSON.stringify(result)`, without serialising a big value twice). */
export function resultJson(result: ToolResult): string {
  const kept = result.ok && (typeof result.value === 'object' || typeof result.value === 'string') ? resultTexts.get(result) : undefined
  return kept ?? JSON.stringify(result)
}

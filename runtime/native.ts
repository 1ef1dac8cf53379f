/**
 * The native path: the tool calls of one assistant message — in any SDK's shape (see native-shapes.ts) —
 * executed through the same scheduler and dispatch as a program's sub-calls, and answered in the shape the
 * SDK expects next (one answer per call, in the model's order). Failures are content, never throws.
 * `callTool` is the same path for one call, returning the structured result (framework adapters).
 */
import { randomUUID } from 'node:crypto'
import { failure, logUndispatched, toJson, type DispatchEnv } from './dispatch.js'
import { CallScheduler } from './scheduler.js'
import { answerIn, readElement, RUN_CODE, type NativeAnswer, type NativeToolCall, type Shape, type ToolAnswerFor } from './native-shapes.js'
import type { Session } from './session.js'
import type { ApprovalHandler, JsonValue, ToolCall, ToolResult } from '../vocabulary/types.js'

export * from './native-shapes.js'

/** The answers, in the model's order; `concludesTurn` tells the caller to skip its next model request. */
export type ToolAnswers<T> = T[] & { concludesTurn: boolean }

export interface ExecuteToolCallsOptions {
  /** Cancels the batch (`null` as some SDKs type their signals is the same as none). */
  signal?: AbortSignal | null | undefined
  /** Answers the approvals this batch's calls ask for (a `run_code` call's sub-calls included). */
  onApproval?: ApprovalHandler
  /** The batch's `run_code` calls run in this session (a handle from `rt.session()`, or its id). */
  session?: Session | string
}

/** Renders a committed result as the content a model reads. `run_code` answers with its observation. */
export function renderContent(call: Pick<ToolCall, 'name'>, result: ToolResult): { content: string; isError: boolean } {
  if (!result.ok) return { content: `Error (${result.error.code}): ${result.error.message}`, isError: true }
  if (call.name === RUN_CODE && isRunAnswer(result.value)) return { content: result.value.observation, isError: !result.value.ok }
  const v = result.value
  // Compact: the model pays for every byte of indentation.
  return { content: typeof v === 'string' ? v : JSON.stringify(v), isError: false }
}

export function isRunAnswer(v: JsonValue): v is { ok: boolean; observation: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.observation === 'string' && typeof v.ok === 'boolean'
}

export async function executeToolCalls<C extends NativeToolCall>(
  env: DispatchEnv,
  maxParallel: number,
  calls: readonly C[] | null | undefined,
  options: ExecuteToolCallsOptions = {},
): Promise<ToolAnswers<ToolAnswerFor<C>>> {
  // A message without tool calls (`tool_calls` undefined) has nothing to answer.
  if (calls === undefined || calls === null) return Object.assign([], { concludesTurn: false })
  if (!Array.isArray(calls)) throw new TypeError('codeact: executeToolCalls takes an array of tool calls')
  // An element too broken to say its shape is answered in the shape of the batch's first good one.
  const firstPass = calls.map((c, i) => readElement(c, i, 'openai'))
  const good = firstPass.find((r) => r.kind === 'call' && r.argsError === undefined)
  const fallback: Shape = good?.kind === 'call' ? good.shape : 'openai'
  const parsed = calls.flatMap((c, i) => {
    const r = firstPass[i]!
    if (r.kind === 'skip') return []
    return [r.argsError === undefined || fallback === 'openai' ? r : readElement(c, i, fallback)].flatMap((x) =>
      x.kind === 'call' ? [x] : [],
    )
  })
  const { results, concludesTurn } = await runBatch(
    env,
    maxParallel,
    parsed,
    options.signal,
    batchShape(parsed.map((p) => p.shape)),
    options.onApproval,
  )
  const answers = results.map((r, i) => {
    const { call, shape } = parsed[i]!
    const { content, isError } = renderContent(call, r)
    return answerIn(shape, call, content, isError)
  })
  // Each answer is in the shape its own element asked for, which is what ToolAnswerFor<C> computes per element.
  return Object.assign(answers as ToolAnswerFor<C>[] & NativeAnswer[], { concludesTurn })
}

export type ParsedCall = { call: ToolCall; argsError?: string }

/** One batch of direct calls through the scheduler, bracketed by batch/start and batch/end (ReAct turns use it too). */
export async function runBatch(
  env: DispatchEnv,
  maxParallel: number,
  parsed: readonly ParsedCall[],
  callerSignal: AbortSignal | null | undefined,
  shape: string,
  handler?: ApprovalHandler,
) {
  const batchId = `batch_${randomUUID().slice(0, 8)}`
  env.log.append('batch/start', { batchId, ids: parsed.map((p) => p.call.id), shape })
  const signal = callerSignal ?? new AbortController().signal
  const scheduler = new CallScheduler({ env, signal, maxParallel, onCommit: () => {} })
  const unscope = handler && env.approvals ? parsed.map((p) => env.approvals!.scope(p.call.id, handler)) : []
  const results = await Promise.all(
    parsed.map((p) => {
      if (p.argsError === undefined) return scheduler.submit(p.call)
      // An element that is no call never reaches dispatch either.
      const message = `${p.call.name === '(unknown)' ? '' : `${p.call.name}: `}${p.argsError}`
      return Promise.resolve(logUndispatched(env, p.call, failure('EINVAL', message)))
    }),
  )
  for (const off of unscope) off()
  const concludesTurn = results.some((r) => r.ok && r.concludesTurn === true)
  env.log.append('batch/end', { batchId, concludesTurn, aborted: signal.aborted })
  return { results, concludesTurn }
}

function batchShape(shapes: readonly Shape[]): string {
  const kinds = new Set(shapes.map((s) => s.replace('-custom', '')))
  return kinds.size === 1 ? [...kinds][0]! : kinds.size === 0 ? 'empty' : 'mixed'
}

/** `rt.callTool`'s answer: the structured result, plus the text a model would read for it. */
export type CallToolResult =
  | {
      ok: true
      value: JsonValue
      /** What a model reads: compact JSON, or `run_code`'s observation. */
      content: string
      /** `run_code` whose program failed: the call succeeded, the content reports an error. */
      isError: boolean
      /** A refusal happened inside the call (e.g. the kernel said EROFS to a command `bash` ran). */
      denied: boolean
      concludesTurn: boolean
    }
  | {
      ok: false
      /** errno-style: EINVAL, ENOSYS, EACCES, EROFS, EPERM, ETIMEDOUT, ECANCELED … */
      code: string
      message: string
      content: string
      isError: true
      /** The policy or a hook refused the call (EACCES, EROFS, EPERM), as opposed to a failure. */
      denied: boolean
      concludesTurn: false
    }

export interface CallToolOptions {
  signal?: AbortSignal | null | undefined
  /** The id the call gets in the event log (a framework's tool-call id). Default: a fresh one. */
  callId?: string | null | undefined
}

const DENIAL_CODES = new Set(['EROFS', 'EACCES', 'EPERM'])

/** One call through validation, hooks, the scheduler and the log, as a model's native call. Never throws. */
export async function callTool(env: DispatchEnv, name: string, args: unknown, options: CallToolOptions = {}): Promise<CallToolResult> {
  const id = options.callId || `call_${randomUUID().slice(0, 8)}`
  const json = toJson(args ?? {})
  const call: ToolCall = { id, name: String(name), args: json.ok ? json.value : null, origin: 'native' }
  const parsed: ParsedCall = json.ok ? { call } : { call, argsError: `arguments are not JSON (${json.why})` }
  let denied = false
  const unsubscribe = env.log.subscribe((e) => {
    if (e.type === 'denial' && (e.data as { callId?: string }).callId === id) denied = true
  })
  const { results } = await runBatch(env, 1, [parsed], options.signal, 'call').finally(unsubscribe)
  const result = results[0]!
  const { content, isError } = renderContent(call, result)
  if (!result.ok) {
    const { code, message } = result.error
    return { ok: false, code, message, content, isError: true, denied: DENIAL_CODES.has(code), concludesTurn: false }
  }
  return { ok: true, value: result.value, content, isError, denied, concludesTurn: result.concludesTurn === true }
}

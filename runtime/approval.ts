/**
 * Approvals: a pre-execute hook answered `{ ask }`, so the call waits for a yes before it runs.
 * The answer comes from whoever is first: a handler scoped to the run or batch (a front door: the CLI's
 * TTY, an MCP client's elicitation), the runtime's `onApproval`, the embedder's `approve`/`deny`, an earlier
 * "always" for the same tool, or the approval's own timeout (a no). Every question and answer is logged,
 * so the observation lists them and replay rebuilds it.
 *
 * The wait happens inside the call's pre-execute stage, and those stages run one at a time in issue
 * order: no later call's hooks run (and no later call starts) while an answer is pending.
 */
import { MAX_TIMER_MS } from '../vocabulary/timer.js'
import { defaultQuestion } from './approval-text.js'
import type { EventLog } from './event-log.js'
import type { ApprovalAnswer, ApprovalAsk, ApprovalHandler, ApprovalRequest, JsonValue, ToolCall, ToolError } from '../vocabulary/types.js'

const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000

type By = 'embedder' | 'handler' | 'always' | 'timeout' | 'cancelled'
interface Decided {
  approved: boolean
  reason?: string
  always?: boolean
  by: By
}

interface ApprovalsOptions {
  log: EventLog
  /** The runtime's own handler, used when no front door scoped one to the run. */
  handler?: ApprovalHandler
  timeoutMs?: number
}

export class Approvals {
  readonly #log: EventLog
  readonly #handler: ApprovalHandler | undefined
  readonly #timeoutMs: number
  readonly #pending = new Map<string, { request: ApprovalRequest; answer: (d: Decided) => void }>()
  readonly #scoped = new Map<string, ApprovalHandler>()
  /**
   * Tools answered "always", per handler: an "always" holds for whoever said it (one MCP connection,
   * one terminal), never for another client of the same runtime.
   */
  readonly #always = new WeakMap<ApprovalHandler, Set<string>>()

  constructor(options: ApprovalsOptions) {
    this.#log = options.log
    this.#handler = options.handler
    const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError(`codeact: approvalTimeoutMs must be a positive number, got ${String(timeoutMs)}`)
    this.#timeoutMs = Math.min(timeoutMs, MAX_TIMER_MS)
  }

  /** Routes the questions of one run (by run id) or one native call (by call id) to `handler`. */
  scope(key: string, handler: ApprovalHandler): () => void {
    this.#scoped.set(key, handler)
    return () => {
      if (this.#scoped.get(key) === handler) this.#scoped.delete(key)
    }
  }

  pending(): ApprovalRequest[] {
    return [...this.#pending.values()].map((p) => p.request)
  }

  /** Answers a pending question; false when `callId` is not waiting (already answered, or unknown). */
  answer(callId: string, approved: boolean, reason?: string): boolean {
    const entry = this.#pending.get(callId)
    if (!entry) return false
    entry.answer({ approved, ...(reason !== undefined ? { reason } : {}), by: 'embedder' })
    return true
  }

  /** Waits for the answer; a no (or no answer in time) is the call's EACCES. Never rejects. */
  async request(call: Readonly<ToolCall>, ask: ApprovalAsk, signal: AbortSignal | undefined): Promise<ToolError | undefined> {
    const runId = call.origin === 'code' ? call.parentId : undefined
    const { message: rawMessage, ...details } = ask
    const message = String(rawMessage ?? `run ${call.name}?`)
    const request: ApprovalRequest = {
      callId: call.id,
      name: call.name,
      args: call.args,
      origin: call.origin,
      ...(runId ? { runId } : {}),
      message,
      details: details as { [key: string]: JsonValue },
    }
    this.#log.append('approval/request', {
      ...(runId ? { runId } : {}),
      callId: call.id,
      name: call.name,
      message,
      ...(Object.keys(details).length ? { details: request.details } : {}),
    })
    const handler = (runId !== undefined ? this.#scoped.get(runId) : undefined) ?? this.#scoped.get(call.id) ?? this.#handler
    const always = handler ? this.#always.get(handler) : undefined
    const decided = always?.has(call.name) ? { approved: true, by: 'always' as const } : await this.#wait(request, handler, signal)
    if (handler && decided.approved && decided.always) {
      if (!always) this.#always.set(handler, new Set([call.name]))
      else always.add(call.name)
    }
    this.#log.append('approval/answer', {
      ...(runId ? { runId } : {}),
      callId: call.id,
      name: call.name,
      approved: decided.approved,
      ...(decided.reason !== undefined ? { reason: decided.reason } : {}),
      by: decided.by,
    })
    if (decided.approved) return undefined
    return { code: 'EACCES', message: `not approved: ${decided.reason ?? 'the request was declined'}` }
  }

  #wait(request: ApprovalRequest, handler: ApprovalHandler | undefined, signal: AbortSignal | undefined): Promise<Decided> {
    return new Promise<Decided>((resolve) => {
      const controller = new AbortController()
      let timer: NodeJS.Timeout | undefined
      const onAbort = () => answer({ approved: false, reason: 'the run ended before an answer came', by: 'cancelled' })
      const answer = (d: Decided) => {
        if (this.#pending.get(request.callId)?.answer !== answer) return
        this.#pending.delete(request.callId)
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        controller.abort()
        resolve(d)
      }
      this.#pending.set(request.callId, { request, answer })
      timer = setTimeout(
        () => answer({ approved: false, reason: `no answer within ${this.#timeoutMs} ms (approvalTimeoutMs)`, by: 'timeout' }),
        this.#timeoutMs,
      )
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      if (!handler) return // the embedder answers with approve()/deny(), or the timeout does
      Promise.resolve()
        .then(() => handler(request, controller.signal))
        .then(
          (a) => answer({ ...normalize(a), by: 'handler' }),
          (e: unknown) =>
            answer({
              approved: false,
              reason: `the approval handler failed: ${e instanceof Error ? e.message : String(e)}`,
              by: 'handler',
            }),
        )
    })
  }
}

function normalize(a: ApprovalAnswer): Omit<Decided, 'by'> {
  if (typeof a === 'boolean') return { approved: a }
  if (a && typeof a === 'object') {
    return {
      approved: a.approve === true,
      ...(typeof a.reason === 'string' ? { reason: a.reason } : {}),
      ...(a.always === true ? { always: true } : {}),
    }
  }
  return { approved: false, reason: 'the approval handler gave no answer' }
}

/** `approve: ['bash', …]` or a predicate → the pre-execute hook that asks. A string from the predicate is the question. */
export type ApprovalPolicy = readonly string[] | ((call: Readonly<ToolCall>) => boolean | string)

export function policyHook(policy: ApprovalPolicy): (call: Readonly<ToolCall>) => { ask: ApprovalAsk } | undefined {
  const names = typeof policy === 'function' ? undefined : new Set(policy)
  return (call) => {
    const verdict = names ? names.has(call.name) : (policy as (c: Readonly<ToolCall>) => boolean | string)(call)
    if (verdict === false) return undefined
    // The whole call, never a clipped prefix: a front door shortens it only with a digest and a way to see it all.
    const message = typeof verdict === 'string' ? verdict : defaultQuestion(call.name, call.args)
    return { ask: { message } }
  }
}

/**
 * Orders calls for both paths (a program's sub-calls, a model's native calls):
 * - pre-execute stages run one at a time, in submission order (a stateful guard is never raced);
 * - parallel tools overlap in a rolling pool of `maxParallel`; an exclusive tool waits for every earlier
 *   call to commit and holds back every later one (its pre-execute stage included) until it commits;
 * - results commit (post-execute hooks, log, caller) strictly in submission order.
 * On abort, started calls are told and settle as ECANCELED; unstarted calls get a synthetic ECANCELED.
 */
import { setMaxListeners } from 'node:events'
import { execute, failure, finish, prepare, type DispatchEnv } from './dispatch.js'
import type { ToolCall, ToolResult } from '../vocabulary/types.js'

export interface Committed {
  call: ToolCall
  result: ToolResult
  durationMs: number
}

export class CallScheduler {
  #env: DispatchEnv
  #signal: AbortSignal
  #maxParallel: number
  #onCommit: (c: Committed) => void
  #stageChain: Promise<unknown> = Promise.resolve()
  #commitChain: Promise<unknown> = Promise.resolve()
  #barrier: Promise<unknown> = Promise.resolve()
  #running = 0
  #waiting: (() => void)[] = []

  constructor(options: { env: DispatchEnv; signal: AbortSignal; maxParallel: number; onCommit: (c: Committed) => void }) {
    this.#env = options.env
    // One internal signal follows the caller's; every in-flight call listens to it, so lift the listener cap
    // (100k parallel calls are a legitimate flood, not a leak) without touching the caller's signal.
    const inner = new AbortController()
    setMaxListeners(0, inner.signal)
    if (options.signal.aborted) inner.abort(options.signal.reason)
    else options.signal.addEventListener('abort', () => inner.abort(options.signal.reason), { once: true })
    this.#signal = inner.signal
    this.#maxParallel = Math.max(1, options.maxParallel)
    this.#onCommit = options.onCommit
  }

  /** Queues one call; resolves to its committed result. Logs `tool/call` now, `tool/result` at commit. */
  submit(call: ToolCall): Promise<ToolResult> {
    this.#env.log.append('tool/call', call)
    const started = Date.now()
    const exclusive = this.#env.registry.get(call.name)?.definition.exclusive === true
    const barrier = this.#barrier
    const allEarlier = this.#commitChain
    // The pre-execute stage: after the previous stage, after the last exclusive call, and (when exclusive)
    // after every earlier call has committed.
    const staged = this.#stageChain.then(() => (exclusive ? allEarlier : barrier)).then(() => this.#stage(call))
    this.#stageChain = staged
    const executed = staged.then((prepared) => (prepared.ok ? this.#run(prepared) : prepared.result))
    const committed = this.#commitChain.then(async () => {
      const raw = await executed
      const prepared = await staged
      // A call that finished keeps its real result even if the run was aborted meanwhile: its effects happened.
      const result = await finish(this.#env, prepared.call, raw)
      const entry = { call: prepared.call, result, durationMs: Date.now() - started }
      this.#env.log.append('tool/result', { id: call.id, name: call.name, result, durationMs: entry.durationMs })
      this.#onCommit(entry)
      return result
    })
    this.#commitChain = committed
    if (exclusive) this.#barrier = committed
    return committed
  }

  /** Resolves when every submitted call has committed. */
  drain(): Promise<void> {
    return this.#commitChain.then(() => undefined)
  }

  async #stage(call: ToolCall) {
    if (this.#signal.aborted)
      return { ok: false as const, call, result: failure('ECANCELED', `${call.name} was cancelled before it started`) }
    return prepare(this.#env, call, this.#signal)
  }

  async #run(prepared: Parameters<typeof execute>[1]): Promise<ToolResult> {
    await this.#acquire()
    try {
      if (this.#signal.aborted) return failure('ECANCELED', `${prepared.call.name} was cancelled before it started`)
      return await execute(this.#env, prepared, this.#signal)
    } finally {
      this.#release()
    }
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#maxParallel) {
      this.#running++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  #release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#running--
  }
}

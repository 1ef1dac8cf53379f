/**
 * The host side of a running program: the `SandboxHost` its tool calls and console lines arrive through.
 * A call is counted against `maxToolCalls`, parsed, logged and handed to the run's scheduler; a line is
 * logged in the user's line numbers. Cancelling the run (the caller's signal, the call limit, a blocking
 * verdict, the run's end) goes through `cancel`.
 */
import { INVALID_ARGS_PREFIX } from '../guest/limits.js'
import type { SandboxHost } from '../sandbox/types.js'
import type { JsonValue, RunError, ToolCall } from '../vocabulary/types.js'
import { type CompiledProgram, userStack } from './compile.js'
import { failure, logUndispatched, type DispatchEnv } from './dispatch.js'
import { IdenticalCalls } from './identical-calls.js'
import { raiseHint } from './limits.js'
import type { OpenRun } from './run-open.js'
import { CallScheduler } from './scheduler.js'

export interface RunBridge {
  readonly host: SandboxHost
  /** Aborted through `cancel` only: what the sandbox and every running call listen to. */
  readonly signal: AbortSignal
  cancel(why: Error): void
  /** A call limit stopped the program (the run was cancelled): the error the run ends with. */
  readonly overLimit: RunError | undefined
  /**
   * The sandbox has answered: from now on a call is refused, never dispatched. Cancels what is still in
   * flight (always, with `force`: a backend that stopped answering) and answers the names of those tools.
   */
  close(force: boolean): Promise<string[]>
  /** Stops listening to the caller's signal (a run that ends without `close`). */
  release(): void
}

export function openBridge(env: DispatchEnv, run: OpenRun, program: CompiledProgram): RunBridge {
  const { runId, limits, options } = run
  const controller = new AbortController()
  // A plain flag, not `controller.signal.aborted` read per call: every AbortSignal has a map of its own,
  // and reading it here threw away callTool's optimised code at each run's first call.
  let cancelled = false
  const cancel = (why: Error) => {
    cancelled = true
    controller.abort(why)
  }
  const onOuterAbort = () => cancel(new Error('aborted'))
  options.signal?.addEventListener('abort', onOuterAbort, { once: true })
  // Made at the run's first call: a trivial run makes none, and the scheduler (its queues and its listener
  // on the run's signal) is a share of the host's time per run worth saving.
  let scheduler: CallScheduler | undefined
  let issued = 0
  // One string joined per call, not two (ids stay in the log).
  const idPrefix = `${runId}.`
  let overLimit: RunError | undefined
  const stop = (message: string) => {
    overLimit = { kind: 'runtime', code: 'EDQUOT', message }
    cancel(new Error('tool call limit'))
    return Promise.resolve(JSON.stringify(failure('EDQUOT', message)))
  }
  const identical = new IdenticalCalls(limits.maxIdenticalCalls)
  // Set once the sandbox has answered: a call that arrives later is refused, never dispatched.
  let over = false
  // Not async, and no per-run closure called per call: one `then` per call, and the same optimised code
  // for every run.
  const callTool: SandboxHost['callTool'] = (name, argsJson) => {
    try {
      if (over || cancelled) return Promise.resolve(JSON.stringify(failure('ECANCELED', 'the run is over')))
      if (++issued > limits.maxToolCalls)
        return stop(`the program made more than ${limits.maxToolCalls} tool calls; it was stopped (${raiseHint('maxToolCalls')})`)
      const repeated = identical.check(name, argsJson, scheduler?.idle ?? true)
      if (repeated) return stop(repeated)
      const call: ToolCall = { id: idPrefix + issued, name, args: null, origin: 'code', parentId: runId }
      const parsed = parseArgs(argsJson)
      if (!parsed.ok) return Promise.resolve(JSON.stringify(logUndispatched(env, call, failure('EINVAL', `${name}: ${parsed.message}`))))
      call.args = parsed.value
      scheduler ??= new CallScheduler({ env, signal: controller.signal, maxParallel: limits.maxParallelToolCalls })
      return scheduler.submitJson(call)
    } catch (e) {
      // As an async function would: a throw (a log file sink that cannot write) is a rejection the sandbox answers.
      return Promise.reject(e)
    }
  }
  const log: SandboxHost['log'] = (entries) => {
    // A logged Error's stack, in the user's line numbers and without the runtime's own frames.
    for (const e of entries) env.log.append('console', { runId, level: e.level, text: userStack(program, e.text) })
  }
  return {
    host: { callTool, log },
    signal: controller.signal,
    cancel,
    get overLimit() {
      return overLimit
    },
    release: () => options.signal?.removeEventListener('abort', onOuterAbort),
    close: async (force) => {
      over = true
      const pending = scheduler?.pendingNames() ?? []
      // When the sandbox answered and every call has committed, nothing listens and the abort is skipped.
      if (force || pending.length) cancel(new Error('run over'))
      options.signal?.removeEventListener('abort', onOuterAbort)
      if (pending.length) await scheduler?.drain()
      return pending
    },
  }
}

function parseArgs(argsJson: string): { ok: true; value: JsonValue } | { ok: false; message: string } {
  if (argsJson.startsWith(INVALID_ARGS_PREFIX)) return { ok: false, message: argsJson.slice(INVALID_ARGS_PREFIX.length) }
  try {
    return { ok: true, value: JSON.parse(argsJson) as JsonValue }
  } catch {
    return { ok: false, message: 'arguments are not JSON' }
  }
}

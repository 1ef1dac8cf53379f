/**
 * One program run: compile -> (type-check) -> sandbox.run with a bridge into the scheduler -> RunResult.
 * Every outcome, including a sandbox that could not start, is a RunResult; this function does not throw.
 */
import { randomUUID } from 'node:crypto'
import { INVALID_ARGS_PREFIX } from '../guest/limits.js'
import type { TypeDiagnostic } from '../program/typecheck.js'
import type { Sandbox, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../sandbox/types.js'
import { compile, compiledProgram, userStack } from './compile.js'
import { failure, type DispatchEnv } from './dispatch.js'
import { eventsOfRun, recordFromEvents, renderObservation } from './observation.js'
import { runMarks } from './run-marks.js'
import { withCompactJson } from './run-result-json.js'
import { CallScheduler } from './scheduler.js'
import type {
  ApprovalHandler,
  ChangeMode,
  ChangeOutcome,
  EventData,
  JsonValue,
  Limits,
  RunError,
  RunResult,
  ToolCall,
} from '../vocabulary/types.js'
import { WorkspaceError, type WorkspaceOps } from '../sandbox/workspace/ops.js'
import type { FinishedChanges, ReviewChange, RunChanges, startRunChanges, WorkspaceRunEnv } from './changes/run-changes.js'
import { raiseHint, resolveLimits } from './limits.js'
import type { ProgramPrep, RuntimeTypecheck } from './typecheck.js'
import { timerMs } from '../vocabulary/timer.js'
import { VerdictGate } from './verdict-gate.js'
import { describeFailure, explainCompileError, judge, withJoinedLinesHint } from './run-errors.js'
import type { Session } from './session.js'
import type { SessionRun } from './session-run.js'

const BACKSTOP_GRACE_MS = 30_000

export interface TypeCheckOutcome {
  /** Formatted diagnostics that block (in `error` mode); empty when the program is clean. */
  report: string
  count: number
  /** Formatted notes that never block (working JavaScript strict TypeScript does not like), one line per cause. */
  advisory?: string
  /** The blocking syntax diagnostics, for a compile error said with the checker's hints. */
  syntax?: TypeDiagnostic[]
  /** The program lines (1-based) the blocking diagnostics name. */
  lines?: number[]
}

export interface RunCodeDeps {
  env: DispatchEnv
  sandbox: Sandbox
  limits: Limits
  /** With the check on: it also prepares programs (normalise, shape check and type check in one request). */
  typecheck?: ProgramPrep &
    Partial<Pick<RuntimeTypecheck, 'prepareEarly'>> & {
      mode: 'error' | 'warn'
    }
  /** Prepares programs off the host's thread when the check is off (runtime/typecheck.ts's createProgramPrep). */
  programs: ProgramPrep
  /** A run started or ended (createRuntime's `collectWhenIdle`: runtime/host-quiet.ts); absent, nothing of the process is touched. */
  noteActivity?: () => void
  /** The workspace, when the runtime has one: every run reports its changes and may be staged. */
  workspace?: WorkspaceRunEnv & {
    /** The runtime's default (`createRuntime({ changes })`). */
    mode: ChangeMode
    /** Per-run ops the workspace tools use instead of the backend's (`ctx.services.workspace`). */
    runOps: Map<string, WorkspaceOps>
    /** runtime/changes/run-changes.ts's, passed in: a runtime without a workspace never loads staging. */
    startRunChanges: typeof startRunChanges
  }
}

export interface RunCodeOptions {
  signal?: AbortSignal
  /** The id of the native `run_code` call this run answers; sub-calls are logged under the run's id. */
  parentId?: string
  limits?: Partial<Limits>
  /**
   * Who the run is for (an MCP session id, a user, a tenant). Runs of different callers never share a
   * sandbox process; runs without one are the runtime's own caller and share.
   */
  caller?: string
  /**
   * How this run's workspace changes land: `apply` (directly, as they happen), `atomic` (all at the end,
   * only if the run ends ok), `dry-run` (never; RunResult.changes carries a diff per file). Default: the
   * runtime's `changes` option.
   */
  changes?: ChangeMode
  /** Review each change of an atomic run that ended ok before it is applied (implies `atomic`). */
  review?: ReviewChange
  /** Answers the approvals this run's calls ask for (a front door's prompt); else the runtime's `onApproval`. */
  onApproval?: ApprovalHandler
  /** Run in this session (a handle from `rt.session()`, or its id): the bindings of its earlier runs are in scope. */
  session?: Session | string
}

/** `session`: a session run (runtime/sessions.ts resolves `options.session` to it). */
export async function runCode(deps: RunCodeDeps, code: string, options: RunCodeOptions = {}, session?: SessionRun): Promise<RunResult> {
  runMarks.at?.('start')
  deps.noteActivity?.()
  const { env } = deps
  // A per-run override is checked and clamped like the runtime's own limits (API misuse throws).
  const limits = options.limits ? resolveLimits(options.limits, deps.limits) : deps.limits
  const changeMode: ChangeMode = options.review ? 'atomic' : (options.changes ?? deps.workspace?.mode ?? 'apply')
  if (!deps.workspace && changeMode !== 'apply') throw new TypeError('codeact: changes: "atomic" and "dry-run" need a workspace')
  let finished: FinishedChanges | undefined
  const runId = options.parentId ?? `run_${randomUUID().slice(0, 8)}`
  const firstSeq = env.log.length
  const unpin = env.log.pin(firstSeq)
  env.log.append('run/start', {
    runId,
    ...(options.parentId ? { parentId: options.parentId } : {}),
    sandbox: deps.sandbox.name,
    code,
    maxObservationBytes: limits.maxObservationBytes,
    ...(session ? { session: session.mark } : {}),
  })
  let clock: number[] | undefined
  const end = (data: Omit<EventData['run/end'], 'runId'>): RunResult => {
    const ws: Partial<EventData['run/end']> = clock ? { clock } : {}
    if (deps.workspace) {
      const none: ChangeOutcome = changeMode === 'dry-run' ? 'dry-run' : changeMode === 'atomic' && !data.ok ? 'discarded' : 'applied'
      ws.changes = (finished?.changes ?? []).map(({ diff: _diff, ...c }) => c)
      ws.applied = finished?.applied ?? none
      if (changeMode !== 'apply') ws.changeMode = changeMode
      if (finished?.applyError)
        ws.notes = [...(data.notes ?? []), `Applying the changes stopped: ${finished.applyError}; the next start will try to finish it.`]
      if (finished?.refused) ws.notes = [...(data.notes ?? []), `Nothing was applied: ${finished.refused}.`]
    }
    const result = finishRun(deps, runId, firstSeq, unpin, limits.maxObservationBytes, { runId, ...data, ...ws })
    if (deps.workspace) {
      result.changes = finished?.changes ?? []
      result.applied = ws.applied!
    }
    return result
  }

  if (Buffer.byteLength(code) > limits.maxSourceBytes) {
    return end({
      ok: false,
      error: {
        kind: 'compile',
        message: `the program is larger than the ${limits.maxSourceBytes}-byte source limit; ${raiseHint('maxSourceBytes')}`,
      },
      droppedOutputBytes: 0,
    })
  }
  if (options.signal?.aborted)
    return end({ ok: false, error: { kind: 'aborted', message: 'the run was cancelled before it started' }, droppedOutputBytes: 0 })
  // One text from here on: what the checker checks is what the compiler compiles (program/normalise.ts).
  // Normalising, the wrapper's shape checks, compiling and the type check run in the checker's thread, the
  // check on or off (program/prepare.ts); what the thread did not finish within its budget fails closed (an
  // unproven wrapper never runs).
  const allowNodeImports = deps.sandbox.name === 'docker'
  const prep = deps.typecheck ?? deps.programs
  // Where the program can reach the world only through this host, it starts as soon as it is compiled,
  // while its check goes on: every call and console line waits for the verdict (verdict-gate.ts). Not a
  // session cell (it changes its realm's globals before any call), not Docker (Node and a mounted workspace).
  const early =
    deps.typecheck?.prepareEarly && !session && deps.sandbox.effectsOnlyThroughHost === true
      ? await deps.typecheck.prepareEarly(code, allowNodeImports)
      : undefined
  const prepared = early
    ? early.prepared
    : session
      ? await session.prepare(prep, code, allowNodeImports)
      : await prep.prepare(code, allowNodeImports)
  /** The check's outcome, still to come. */
  const pendingVerdict = early && prepared.outcome === undefined ? early.verdict : undefined
  const shaped = prepared.normalised
  if (shaped === undefined)
    return end({
      ok: false,
      error: { kind: 'compile', message: prepared.unprepared ?? 'the program could not be prepared; nothing ran' },
      droppedOutputBytes: 0,
    })
  if (shaped.problem) return end({ ok: false, error: { kind: 'compile', ...shaped.problem }, droppedOutputBytes: 0 })
  // Compiled in the same thread request; if the thread stopped before (a check past its budget), compiled here.
  const compiled = prepared.compiled
    ? compiledProgram(prepared.compiled, shaped.text)
    : await compile(shaped.text, { shapes: prep.shapes, ...(prepared.shape ? { sourceShape: prepared.shape } : {}) })
  if (!compiled.ok) {
    const checked = prepared.outcome ?? (await pendingVerdict)
    return end({ ok: false, error: explainCompileError(shaped.text, compiled.error, checked), droppedOutputBytes: 0 })
  }

  const notes: string[] = []
  const mode = deps.typecheck?.mode ?? 'error'
  if (deps.typecheck && prepared.outcome) {
    const judged = judge(prepared.outcome, mode, shaped.text)
    if (judged.stop) return end({ ok: false, error: judged.stop, droppedOutputBytes: 0 })
    notes.push(...judged.notes)
  }

  // Cancelled while it was being prepared (a check takes a moment; a REPL's Ctrl-C lands here): nothing runs.
  if (options.signal?.aborted)
    return end({ ok: false, error: { kind: 'aborted', message: 'the run was cancelled before it started' }, droppedOutputBytes: 0 })
  runMarks.at?.('staged')
  const unscope = options.onApproval && env.approvals ? env.approvals.scope(runId, options.onApproval) : () => {}
  const controller = new AbortController()
  // Every AbortSignal of Node 20 has a map of its own: reading `controller.signal.aborted` per call made V8
  // throw away callTool's optimised code at each run's first call (and spend ~20–70 ms of a compiler thread
  // rebuilding it). A plain flag says the same: this controller is aborted only through `cancel`.
  let cancelled = false
  const cancel = (why: Error) => {
    cancelled = true
    controller.abort(why)
  }
  const onOuterAbort = () => cancel(new Error('aborted'))
  options.signal?.addEventListener('abort', onOuterAbort, { once: true })
  // Made at the run's first call: most runs of a model make a few, a trivial one none, and the scheduler
  // (its queues and its listener on the run's signal) was a measurable share of the host's time per run.
  let scheduler: CallScheduler | undefined
  let issued = 0
  // One string joined per call, not two (`${runId}.${issued}` made a cons string of a cons string; ids stay in the log).
  const idPrefix = `${runId}.`
  let overLimit = false
  // Set once the sandbox has answered: a call that arrives later is refused, never dispatched.
  let over = false
  // With the verdict to come (mode error): what the program does waits for it, and a blocking one stops the run.
  const gate = pendingVerdict && mode === 'error' ? new VerdictGate() : undefined
  let typeStop: RunError | undefined
  const verdict = pendingVerdict?.then((checked) => {
    const judged = judge(checked, mode, shaped.text)
    if (judged.stop) {
      typeStop = judged.stop
      gate?.block()
      cancel(new Error('the program does not type-check'))
    } else gate?.open()
    return judged
  })
  // Not async, and no per-run closure called per call: one `then` per call where two async frames were, and
  // the same optimised code for every run (a new closure called from here each run cost a deopt a run).
  const callTool: SandboxHost['callTool'] = (name, argsJson) => {
    try {
      if (over || cancelled) return Promise.resolve(JSON.stringify(failure('ECANCELED', 'the run is over')))
      if (++issued > limits.maxToolCalls) {
        overLimit = true
        cancel(new Error('tool call limit'))
        return Promise.resolve(
          JSON.stringify(
            failure('EDQUOT', `the limit of ${limits.maxToolCalls} tool calls per run was reached; ${raiseHint('maxToolCalls')}`),
          ),
        )
      }
      const call: ToolCall = { id: idPrefix + issued, name, args: null, origin: 'code', parentId: runId }
      const parsed = parseArgs(argsJson)
      if (!parsed.ok) {
        // Logged like any call, so the observation lists it; never dispatched.
        env.log.append('tool/call', call)
        const result = failure('EINVAL', `${name}: ${parsed.message}`)
        env.log.append('tool/result', { id: call.id, name, result, durationMs: 0 })
        return Promise.resolve(JSON.stringify(result))
      }
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
    for (const e of entries) env.log.append('console', { runId, level: e.level, text: userStack(compiled.program, e.text) })
  }
  const host: SandboxHost = gate
    ? {
        callTool: (name, argsJson) => gate.call(() => callTool(name, argsJson), TYPE_STOPPED),
        log: (entries) => gate.log(() => log(entries)),
      }
    : { callTool, log }

  let wsRun: RunChanges | undefined
  if (deps.workspace) {
    try {
      wsRun = await deps.workspace.startRunChanges(deps.workspace, changeMode, runId, limits.maxDiffBytes)
    } catch (err) {
      options.signal?.removeEventListener('abort', onOuterAbort)
      // A type error is said first, as when the check came before staging.
      if (verdict) await verdict
      if (typeStop) return end({ ok: false, error: typeStop, droppedOutputBytes: 0 })
      return end({
        ok: false,
        error: {
          kind: 'sandbox_unavailable',
          code: err instanceof WorkspaceError && err.code === 'EPERM' ? 'EPERM' : 'SANDBOX_UNAVAILABLE',
          message: `could not stage the workspace for a${changeMode === 'atomic' ? 'n atomic' : ' dry'} run: ${err instanceof Error ? err.message : String(err)}`,
        },
        droppedOutputBytes: 0,
      })
    }
    deps.workspace.runOps.set(runId, wsRun.ops)
  }
  await deps.sandbox.start()
  const request: SandboxRunRequest = {
    runId,
    js: compiled.program.js,
    toolNames: env.registry.programNameList(),
    limits: {
      timeoutMs: limits.timeoutMs,
      deadlineMs: limits.deadlineMs,
      memoryMb: limits.memoryMb,
      maxOutputBytes: limits.maxOutputBytes,
    },
    ...(options.caller !== undefined ? { callerId: options.caller } : {}),
  }
  runMarks.at?.('sandbox')
  const runOnce = (r: SandboxRunRequest) => deps.sandbox.run(r, host, controller.signal)
  const run = session ? session.run(request, runOnce, controller.signal) : runOnce(request)
  // The backend owns the deadline (its clock starts when the program does); this backstop only catches a
  // backend that stops answering, so it allows for a container's start-up on top of the run's own limit.
  let timer: NodeJS.Timeout | undefined
  const raced = await new Promise<SandboxOutcome | 'timeout'>((resolve, reject) => {
    timer = setTimeout(() => resolve('timeout'), timerMs(limits.deadlineMs + BACKSTOP_GRACE_MS))
    run.then(resolve, reject)
  })
  clearTimeout(timer)
  runMarks.at?.('ran')
  // A program that finished first waits for its verdict (bounded by the check's budget); what it held goes
  // through (or is dropped) before the run is over, as if nothing had waited.
  const judged = verdict && (await verdict)
  if (typeStop) {
    // Nothing of the attempt reached the world: no call, no line, no change; the result is the type error.
    options.signal?.removeEventListener('abort', onOuterAbort)
    unscope()
    if (wsRun) {
      deps.workspace!.runOps.delete(runId)
      await wsRun.finish(false)
    }
    return end({ ok: false, error: typeStop, droppedOutputBytes: 0 })
  }
  if (judged) notes.push(...judged.notes)
  over = true
  const pendingAtEnd = scheduler?.pendingNames() ?? []
  // Calls still in flight are cancelled (and a backend that stopped answering is told); when the sandbox
  // answered and every call has committed, nothing listens and the abort is skipped.
  if (raced === 'timeout' || pendingAtEnd.length) cancel(new Error('run over'))
  options.signal?.removeEventListener('abort', onOuterAbort)
  if (pendingAtEnd.length) await scheduler?.drain()
  unscope()

  const outcome: SandboxOutcome =
    raced === 'timeout'
      ? {
          ok: false,
          error: { kind: 'timeout', budget: 'deadline', message: `the sandbox did not stop within ${limits.deadlineMs} ms` },
          droppedOutputBytes: 0,
        }
      : raced
  for (const d of outcome.denials ?? []) env.log.append('denial', { runId, code: d.code, message: d.message })
  if (session) {
    notes.unshift(...session.notes)
    clock = outcome.clock?.filter((n) => typeof n === 'number' && Number.isFinite(n))
  }
  if (wsRun) {
    deps.workspace!.runOps.delete(runId)
    finished = await wsRun.finish(outcome.ok && !overLimit, options.review)
  }
  if (outcome.ok && !overLimit) {
    const value = outcome.valueJson === undefined ? undefined : (JSON.parse(outcome.valueJson) as JsonValue)
    return end({
      ok: true,
      ...(value !== undefined ? { value } : {}),
      ...(outcome.valueNote ? { valueNote: outcome.valueNote } : {}),
      error: null,
      droppedOutputBytes: outcome.droppedOutputBytes,
      ...(notes.length ? { notes } : {}),
    })
  }
  const error = overLimit
    ? {
        kind: 'runtime' as const,
        code: 'EDQUOT',
        message: `the program made more than ${limits.maxToolCalls} tool calls; it was stopped (${raiseHint('maxToolCalls')})`,
      }
    : describeFailure(outcome as SandboxOutcome & { ok: false }, compiled.program, limits, pendingAtEnd)
  if (error.kind === 'runtime' && error.line !== undefined) error.message = withJoinedLinesHint(error.message, shaped.text, [error.line])
  if (session && error.kind === 'memory') error.message = session.memoryHint(error.message)
  return end({ ok: false, error, droppedOutputBytes: outcome.droppedOutputBytes, ...(notes.length ? { notes } : {}) })
}

/** What a held call is answered when the verdict stopped the run (the program never sees it: it is aborted). */
const TYPE_STOPPED = JSON.stringify(failure('ECANCELED', 'the program does not type-check; nothing ran'))

function parseArgs(argsJson: string): { ok: true; value: JsonValue } | { ok: false; message: string } {
  if (argsJson.startsWith(INVALID_ARGS_PREFIX)) return { ok: false, message: argsJson.slice(INVALID_ARGS_PREFIX.length) }
  try {
    return { ok: true, value: JSON.parse(argsJson) as JsonValue }
  } catch {
    return { ok: false, message: 'arguments are not JSON' }
  }
}

function finishRun(
  deps: RunCodeDeps,
  runId: string,
  firstSeq: number,
  unpin: () => void,
  maxObservationBytes: number,
  data: EventData['run/end'],
): RunResult {
  const { log } = deps.env
  log.append('run/end', data)
  const events = eventsOfRun(log.since(firstSeq), runId)
  unpin()
  const record = recordFromEvents(events, runId)!
  const result = withCompactJson({
    ok: data.ok,
    value: data.value,
    logs: record.logs,
    calls: record.calls,
    error: data.error,
    observation: renderObservation(record, maxObservationBytes),
    events,
  })
  runMarks.at?.('end')
  deps.noteActivity?.()
  return result
}

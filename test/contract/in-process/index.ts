/**
 * A minimal backend in this process, over node:vm: the proof that the Sandbox seam is all a backend needs
 * (test/contract/seam). No isolation is claimed: the program shares this process's heap and thread, so it
 * has no memory limit and a busy loop after its first `await` cannot be stopped (see its skip list in
 * test/contract/in-process.test.ts). Program time before the first `await` is bounded by node:vm's timeout,
 * program time after it by the shared ProgramClock, the deadline by a timer.
 */
import vm from 'node:vm'
import { ProgramClock } from '../../../sandbox/program-clock.js'
import {
  type Sandbox,
  type SandboxErrorKind,
  type SandboxHost,
  type SandboxOutcome,
  type SandboxRunRequest,
  unavailable,
} from '../../../sandbox/types.js'
import {
  type InProcessWorkspace,
  installConsole,
  installEntropy,
  installTimers,
  installWorkspace,
  newRealm,
  type RunTrace,
} from './realm.js'

export interface InProcessOptions {
  /** Where `require('node:fs').writeFileSync` writes; unset: the program has no `require`. */
  workspace?: InProcessWorkspace
  /** Why this backend cannot start: `start` resolves and every run answers `sandbox_unavailable`. */
  unstartable?: string
}

export function createInProcessSandbox(options: InProcessOptions = {}): Sandbox {
  const realms = new Map<string, vm.Context>()
  const inFlight = new Set<AbortController>()
  let closed = false
  return {
    name: 'in-process',
    capabilities: { nodeModules: false, effectsOnlyThroughHost: true, programWrites: true, sessions: true, stagesItself: false },
    start: async () => {},
    async run(request, host, signal) {
      if (options.unstartable !== undefined) return unavailable(options.unstartable)
      if (closed) return unavailable('the in-process sandbox is closed')
      const session = request.session
      let realm = session ? realms.get(session.id) : undefined
      if (session?.realm === 'existing' && realm === undefined) return failed('session_lost', `no realm for session ${session.id}`)
      if (session?.realm === 'new' || realm === undefined) realm = newRealm()
      if (session) realms.set(session.id, realm)
      const stop = new AbortController()
      inFlight.add(stop)
      try {
        return await runIn(realm, request, host, AbortSignal.any([signal, stop.signal]), options.workspace)
      } finally {
        inFlight.delete(stop)
      }
    },
    endSession: async (id) => void realms.delete(id),
    async close() {
      closed = true
      for (const stop of inFlight) stop.abort()
      realms.clear()
    },
  }
}

function failed(
  kind: SandboxErrorKind,
  message: string,
  trace?: RunTrace,
  extra: { budget?: 'program' | 'deadline'; stack?: string } = {},
): SandboxOutcome {
  return { ok: false, error: { kind, message, ...extra }, droppedOutputBytes: trace?.droppedOutputBytes ?? 0, ...reported(trace) }
}

function reported(trace: RunTrace | undefined) {
  if (!trace) return {}
  return {
    ...(trace.denials.length ? { denials: trace.denials } : {}),
    ...(trace.ownEffects.length ? { ownEffects: trace.ownEffects } : {}),
    ...(trace.clock ? { clock: trace.clock } : {}),
  }
}

/** One run in `realm`: its tools this run's, its clocks armed, its end the first of the program, a budget or the signal. */
async function runIn(
  realm: vm.Context,
  request: SandboxRunRequest,
  host: SandboxHost,
  signal: AbortSignal,
  workspace: InProcessWorkspace | undefined,
): Promise<SandboxOutcome> {
  const trace: RunTrace = { droppedOutputBytes: 0, denials: [], ownEffects: [], clock: undefined }
  if (signal.aborted) return failed('aborted', 'the run was aborted before it started', trace)
  const { limits } = request
  let end!: (outcome: SandboxOutcome) => void
  const ended = new Promise<SandboxOutcome>((resolve) => (end = resolve))
  const clock = new ProgramClock(limits.timeoutMs, () =>
    end(failed('timeout', `the program ran past ${limits.timeoutMs} ms`, trace, { budget: 'program' })),
  )
  const deadline = setTimeout(
    () => end(failed('timeout', `the run's deadline of ${limits.deadlineMs} ms passed`, trace, { budget: 'deadline' })),
    limits.deadlineMs ?? 2 ** 31 - 1,
  )
  const onAbort = () => end(failed('aborted', 'the run was aborted', trace))
  signal.addEventListener('abort', onAbort)
  installConsole(realm, limits.maxOutputBytes, trace, (entries) => host.log(entries))
  if (request.entropy) installEntropy(realm, request.entropy, trace)
  if (workspace) installWorkspace(realm, workspace, trace)
  realm.tools = toolsFor(realm, request.toolNames, host, clock)
  const timers = installTimers(realm)
  // A rejection nobody handled ends the run, as in every backend; told apart from others by its realm's Promise.
  const realmPromise = vm.runInContext('Promise.prototype', realm) as object
  const onUnhandled = (reason: unknown, promise: Promise<unknown>) => {
    if (Object.getPrototypeOf(promise) === realmPromise)
      end(failed('runtime', `unhandled promise rejection: ${describe(reason)}`, trace, stackOf(reason)))
  }
  process.on('unhandledRejection', onUnhandled)
  try {
    const done = (
      vm.runInContext(`(${request.js})()`, realm, { filename: 'program.js', timeout: clock.remaining() }) as Promise<unknown>
    ).then(
      (value) => end(valueOutcome(realm, value, trace)),
      (e: unknown) => end(failed('runtime', describe(e), trace, stackOf(e))),
    )
    void done
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code
    if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      end(failed('timeout', `the program ran past ${limits.timeoutMs} ms`, trace, { budget: 'program' }))
    else
      end(failed(e instanceof SyntaxError || (e as Error)?.name === 'SyntaxError' ? 'compile' : 'runtime', describe(e), trace, stackOf(e)))
  }
  const outcome = await ended
  clock.dispose()
  clearTimeout(deadline)
  signal.removeEventListener('abort', onAbort)
  process.off('unhandledRejection', onUnhandled)
  for (const t of timers) clearTimeout(t)
  return outcome
}

/** `tools.<name>(args)`: the args as JSON text to the host, the answer parsed in the realm, a failure a ToolCallError. */
function toolsFor(realm: vm.Context, names: readonly string[], host: SandboxHost, clock: ProgramClock): Record<string, unknown> {
  const parse = vm.runInContext('JSON.parse', realm) as (text: string) => {
    ok: boolean
    value?: unknown
    error?: { code: string; message: string }
  }
  const ToolCallError = realm.ToolCallError as new (name: string, code: string, message: string) => Error
  const tools: Record<string, unknown> = {}
  for (const name of names) {
    tools[name] = async (args: unknown) => {
      const argsJson = JSON.stringify(args ?? {})
      clock.callStarted()
      const answer = parse(await host.callTool(name, argsJson).finally(() => clock.callSettled()))
      if (answer.ok) return answer.value
      throw new ToolCallError(name, answer.error?.code ?? 'EIO', answer.error?.message ?? '')
    }
  }
  return tools
}

function valueOutcome(realm: vm.Context, value: unknown, trace: RunTrace): SandboxOutcome {
  try {
    const json = (vm.runInContext('JSON.stringify', realm) as (v: unknown) => string | undefined)(value)
    return { ok: true, valueJson: json, droppedOutputBytes: trace.droppedOutputBytes, ...reported(trace) }
  } catch (e) {
    return {
      ok: true,
      valueJson: undefined,
      valueNote: `not JSON: ${describe(e)}`,
      droppedOutputBytes: trace.droppedOutputBytes,
      ...reported(trace),
    }
  }
}

/** `Name: message` for an Error of any realm; the value itself for anything else. */
function describe(e: unknown): string {
  try {
    if (e !== null && typeof e === 'object' && 'message' in e) return `${String((e as Error).name ?? 'Error')}: ${String(e.message)}`
    return `Thrown: ${String(e)}`
  } catch {
    return '[unprintable error]'
  }
}

function stackOf(e: unknown): { stack?: string } {
  try {
    const stack = (e as { stack?: unknown } | null)?.stack
    return typeof stack === 'string' ? { stack } : {}
  } catch {
    return {}
  }
}

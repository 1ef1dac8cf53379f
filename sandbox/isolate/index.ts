/**
 * The isolate backend: programs run in isolated-vm isolates that live in a supervised child process, so
 * nothing a program does (V8 aborting on out-of-memory included) can take the caller's process down.
 * This side never loads isolated-vm. It routes JSON text between the child and the SandboxHost, enforces
 * the deadline a second time (kills a child that stops answering), and replaces a child that died.
 */
import type { LogEntry } from '../../vocabulary/types.js'
import { unavailable, type Sandbox, type SandboxHost, type SandboxLimits, type SandboxOutcome, type SandboxRunRequest } from '../types.js'
import { resolveChildEntry } from './child-path.js'
import { DEFAULT_CHILD_CONFIG, stoppedOutcome, type ChildConfig, type FromChild } from './protocol.js'
import { SupervisedChild, type ChildExit } from './supervisor.js'

export interface IsolateSandboxOptions {
  /** Warm isolates kept ready per memory limit (default 1; 0 creates one per run). */
  warmIsolates?: number
  /** The memory limit (MB) to warm up for before the first run (default 128). */
  warmMemoryMb?: number
  /** Retire an isolate after this many runs (default 100). */
  maxRunsPerIsolate?: number
  /** How long past a run's deadline (or an abort) the child may stay silent before it is killed (default 2000 ms). */
  killGraceMs?: number
  /** The built child entry (`child.js`); by default found next to this file or under `<repo>/dist`. */
  childEntry?: string
}

interface InFlight {
  readonly id: number
  readonly child: SupervisedChild
  readonly host: SandboxHost
  readonly limits: SandboxLimits
  readonly resolve: (outcome: SandboxOutcome) => void
  settled: boolean
  /** Set when this side gave up on the run before killing the child. */
  reason: 'timeout' | 'aborted' | undefined
  backstop: NodeJS.Timeout | undefined
  detach: () => void
}

export function createIsolateSandbox(options: IsolateSandboxOptions = {}): Sandbox {
  return new IsolateSandbox(options)
}

class IsolateSandbox implements Sandbox {
  readonly name = 'isolate'
  readonly #config: ChildConfig
  readonly #graceMs: number
  readonly #entry: string | undefined
  #child: SupervisedChild | undefined
  #starting: Promise<SupervisedChild | string> | undefined
  readonly #runs = new Map<number, InFlight>()
  /** Why this side killed a child, for the runs that die with it. */
  readonly #killedBecause = new WeakMap<SupervisedChild, string>()
  #nextId = 1
  #closed = false

  constructor(options: IsolateSandboxOptions) {
    this.#config = {
      ...DEFAULT_CHILD_CONFIG,
      ...(options.warmIsolates !== undefined && { warmIsolates: options.warmIsolates }),
      ...(options.warmMemoryMb !== undefined && { warmMemoryMb: options.warmMemoryMb }),
      ...(options.maxRunsPerIsolate !== undefined && { maxRunsPerIsolate: options.maxRunsPerIsolate }),
    }
    this.#graceMs = options.killGraceMs ?? 2000
    this.#entry = options.childEntry
  }

  async start(): Promise<void> {
    if (!this.#closed) await this.#ensureChild()
  }

  async run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    try {
      return await this.#run(request, host, signal)
    } catch (e) {
      const message = `the isolate sandbox failed: ${e instanceof Error ? e.message : String(e)}`
      return { ok: false, error: { kind: 'runtime', message }, droppedOutputBytes: 0 }
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const starting = this.#starting
    const child = this.#child ?? (starting ? await starting : undefined)
    for (const run of this.#runs.values()) this.#settle(run, stoppedOutcome('aborted', run.limits))
    if (child && typeof child !== 'string') {
      // Hold the event loop until the child is really gone, or a caller awaiting close() would exit first.
      child.hold(true)
      child.kill()
      await child.closed
    }
  }

  async #run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    const limits = normalizeLimits(request.limits)
    if (this.#closed) return unavailable('the isolate sandbox is closed')
    if (signal.aborted) return stoppedOutcome('aborted', limits)
    const child = await this.#ensureChild()
    if (typeof child === 'string') return unavailable(child)
    if (this.#closed) return unavailable('the isolate sandbox is closed')
    if (signal.aborted) return stoppedOutcome('aborted', limits)
    const id = this.#nextId++
    return new Promise<SandboxOutcome>((resolve) => {
      const onAbort = () => this.#giveUp(run, 'aborted', this.#graceMs)
      const run: InFlight = {
        id, child, host, limits, resolve,
        settled: false,
        reason: undefined,
        backstop: undefined,
        detach: () => signal.removeEventListener('abort', onAbort),
      }
      this.#runs.set(id, run)
      signal.addEventListener('abort', onAbort, { once: true })
      run.backstop = setTimeout(() => this.#giveUp(run, 'timeout', 0), limits.timeoutMs + this.#graceMs)
      child.hold(true)
      child.send({ t: 'run', id, js: request.js, toolNames: [...request.toolNames], limits })
    })
  }

  #ensureChild(): Promise<SupervisedChild | string> {
    if (this.#child?.alive) return Promise.resolve(this.#child)
    if (this.#starting) return this.#starting
    const entry = this.#entry !== undefined ? { ok: true as const, path: this.#entry } : resolveChildEntry()
    if (!entry.ok) return Promise.resolve(entry.message)
    const listener = { message: this.#onMessage.bind(this), exit: this.#onExit.bind(this) }
    this.#starting = SupervisedChild.spawn(entry.path, this.#config, listener).then((child) => {
      this.#starting = undefined
      if (typeof child !== 'string') {
        this.#child = child
        child.hold(false)
      }
      return child
    })
    return this.#starting
  }

  /**
   * Stop waiting for a run. An abort is answered now and the child told to dispose the isolate; if it does
   * not confirm within the grace period, it is killed. A run still silent past deadline plus grace means
   * the child itself is stuck: it is killed now, and the run ends as a timeout when it is gone.
   */
  #giveUp(run: InFlight, reason: 'timeout' | 'aborted', graceMs: number): void {
    if (!this.#runs.has(run.id)) return
    run.reason ??= reason
    const kill = () => {
      if (!this.#runs.has(run.id)) return
      this.#killedBecause.set(run.child, 'another run in it stopped answering')
      run.child.kill()
    }
    clearTimeout(run.backstop)
    if (reason === 'timeout') return kill()
    this.#settle(run, stoppedOutcome('aborted', run.limits))
    run.child.send({ t: 'abort', id: run.id })
    run.backstop = setTimeout(kill, graceMs)
  }

  #onMessage(message: FromChild, child: SupervisedChild): void {
    if (message.t === 'ready') return
    const run = this.#runs.get(message.id)
    if (!run || run.child !== child) return
    if (message.logs && !run.settled) deliverLogs(run.host, message.logs)
    switch (message.t) {
      case 'log':
        return
      case 'call': {
        if (run.settled) return
        const { callId } = message
        callHost(run.host, message.name, message.argsJson).then((text) => {
          if (this.#runs.get(run.id) === run) child.send({ t: 'result', id: run.id, callId, text })
        })
        return
      }
      case 'done':
        this.#finish(run, message.outcome)
        return
    }
  }

  #onExit(exit: ChildExit, child: SupervisedChild): void {
    if (this.#child === child) this.#child = undefined
    const why = this.#killedBecause.get(child)
    const dying = [...this.#runs.values()].filter((run) => run.child === child)
    for (const run of dying) {
      if (run.reason) this.#finish(run, stoppedOutcome(run.reason, run.limits))
      else if (exit.outOfMemory) {
        // V8 does not say which isolate ran out; with company, say so rather than blame this run alone.
        const outcome = stoppedOutcome('memory', run.limits)
        if (!outcome.ok && dying.length > 1) outcome.error.message += ` (or one of ${dying.length - 1} other runs beside it did)`
        this.#finish(run, outcome)
      } else {
        const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`
        const message = `the sandbox process died (${how})${why ? `: ${why}` : ''}`
        this.#finish(run, { ok: false, error: { kind: 'runtime', message }, droppedOutputBytes: 0 })
      }
    }
  }

  #finish(run: InFlight, outcome: SandboxOutcome): void {
    clearTimeout(run.backstop)
    this.#runs.delete(run.id)
    this.#settle(run, outcome)
    if (![...this.#runs.values()].some((r) => r.child === run.child)) run.child.hold(false)
  }

  #settle(run: InFlight, outcome: SandboxOutcome): void {
    if (run.settled) return
    run.settled = true
    run.detach()
    run.resolve(outcome)
  }
}

function normalizeLimits(limits: SandboxLimits): SandboxLimits {
  const pick = (n: number, fallback: number, min: number) => (Number.isFinite(n) ? Math.max(min, n) : fallback)
  return {
    timeoutMs: pick(limits.timeoutMs, 30_000, 1),
    // isolated-vm's floor is 8 MB.
    memoryMb: Math.round(pick(limits.memoryMb, 128, 8)),
    maxOutputBytes: pick(limits.maxOutputBytes, 1 << 20, 0),
  }
}

/** The host's answer as JSON text; a host that breaks its promise never to reject still gets an answer. */
async function callHost(host: SandboxHost, name: string, argsJson: string): Promise<string> {
  try {
    const text = await host.callTool(name, argsJson)
    if (typeof text === 'string') return text
  } catch {
    // fall through
  }
  return JSON.stringify({ ok: false, error: { code: 'EIO', message: 'the host failed to answer the tool call' } })
}

function deliverLogs(host: SandboxHost, logs: LogEntry[]): void {
  try {
    host.log(logs)
  } catch {
    // A host's logging bug must not end the run.
  }
}

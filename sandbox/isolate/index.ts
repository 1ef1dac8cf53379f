/**
 * The isolate backend: programs run in isolated-vm isolates that live in supervised child processes, so
 * nothing a program does (V8 aborting on out-of-memory included) can take the caller's process down, and
 * one child per caller (`caller-pool.ts`), so it cannot take another caller's runs down either.
 * This side never loads isolated-vm. It routes JSON text between the children and the SandboxHost,
 * enforces the deadline a second time (kills a child that stops answering), and replaces a child that died.
 */
import type { LogEntry } from '../../vocabulary/types.js'
import { unavailable, type Sandbox, type SandboxHost, type SandboxLimits, type SandboxOutcome, type SandboxRunRequest } from '../types.js'
import { CallerPool, DEFAULT_CALLER, type Lease } from './caller-pool.js'
import { resolveChildEntry } from './child-path.js'
import { ProgramClock } from '../program-clock.js'
import { type CallAnswer, DEFAULT_CHILD_CONFIG, M, MAX_TIMER_MS, stoppedOutcome, type ChildConfig, type FromChild } from './protocol.js'
import { retainSpare, spawnChild } from './spare-child.js'
import type { ChildExit, SupervisedChild } from './supervisor.js'

export interface IsolateSandboxOptions {
  /** Warm isolates kept ready per memory limit (default 1; 0 creates one per run). */
  warmIsolates?: number
  /** The memory limit (MB) to warm up for before the first run (default 128). */
  warmMemoryMb?: number
  /** Retire an isolate after this many runs (default 100). */
  maxRunsPerIsolate?: number
  /**
   * After this long without a run (ms, default 5000; 0: never), the child keeps only `warmIsolates` warm
   * isolates and compacts their heaps and its own (a footprint at rest ~5 MB smaller); the next run still
   * finds a warm isolate with its realm ready.
   */
  quietMs?: number
  /** How long past a run's deadline (or an abort) the child may stay silent before it is killed (default 2000 ms). */
  killGraceMs?: number
  /** The built child entry (`child.js`); by default found next to this file or under `<repo>/dist`. */
  childEntry?: string
  /**
   * What shares a process. `caller` (default): runs with the same `callerId` (or none) share one child;
   * different callers never do. `run`: every run gets a child of its own, retired when it ends.
   */
  isolation?: 'caller' | 'run'
  /** Children serving callers at once (default 8); a new caller past it waits for one to go idle. */
  maxProcesses?: number
  /** A named caller's child is retired after this long without a run (default 60 s). */
  idleMs?: number
  /**
   * Keep one warm child per host process, shared by every sandbox that sets this (default false): a new
   * sandbox's first run takes it instead of spawning (a never-used child only; once taken it serves that
   * sandbox's caller alone), and a new spare starts in its place. One more process while such a sandbox is
   * open; for a process that makes many runtimes (a server with a runtime per session, tests).
   */
  shareSpare?: boolean
}

interface InFlight {
  readonly id: number
  readonly child: SupervisedChild
  readonly lease: Lease
  readonly host: SandboxHost
  readonly limits: SandboxLimits
  readonly resolve: (outcome: SandboxOutcome) => void
  settled: boolean
  /** Set when this side gave up on the run before killing the child. */
  reason: 'timeout' | 'deadline' | 'aborted' | undefined
  backstop: NodeJS.Timeout | undefined
  /** This side's copy of the program's clock (paused while a call is pending), plus the grace. */
  clock: ProgramClock | undefined
  detach: () => void
  /** Answers waiting for the end of this turn of the event loop, to be sent together. */
  answers: CallAnswer[] | undefined
  /** Calls sent to the host and not answered yet. */
  open: number
}

/** The isolate backend, with a look at which processes serve which callers. */
export interface IsolateSandbox extends Sandbox {
  /** Children serving callers now, and whether a warm spare is ready or starting. */
  readonly processes: { leased: number; spare: boolean }
  /** The pid of the process serving `callerId` (unset: the runtime's own caller), if it has one. */
  pidOf(callerId?: string): number | undefined
  endSession(id: string): Promise<void>
}

export function createIsolateSandbox(options: IsolateSandboxOptions = {}): IsolateSandbox {
  return new IsolateSandboxImpl(options)
}

class IsolateSandboxImpl implements IsolateSandbox {
  readonly name = 'isolate'
  /** A program here has only what the prelude gives it: tools, console, timers (no WebAssembly, no Node). */
  readonly capabilities = { nodeModules: false, effectsOnlyThroughHost: true, programWrites: false, sessions: true, stagesItself: false }
  readonly #config: ChildConfig
  readonly #graceMs: number
  readonly #isolation: 'caller' | 'run'
  readonly #pool: CallerPool
  readonly #runs = new Map<number, InFlight>()
  /** Why this side killed a child, for the runs that die with it. */
  readonly #killedBecause = new WeakMap<SupervisedChild, string>()
  /** Which child holds each session's realm. */
  readonly #sessions = new Map<string, { child: SupervisedChild; lease: Lease }>()
  #nextId = 1
  #closed = false
  #closing: Promise<void> | undefined
  /** Lets go of the process-wide spare child (spare-child.ts) when this sandbox closes. */
  readonly #releaseSpare: () => Promise<void>

  constructor(options: IsolateSandboxOptions) {
    this.#config = {
      ...DEFAULT_CHILD_CONFIG,
      ...(options.warmIsolates !== undefined && { warmIsolates: options.warmIsolates }),
      ...(options.warmMemoryMb !== undefined && { warmMemoryMb: options.warmMemoryMb }),
      ...(options.maxRunsPerIsolate !== undefined && { maxRunsPerIsolate: options.maxRunsPerIsolate }),
      ...(options.quietMs !== undefined && { quietMs: options.quietMs }),
    }
    this.#graceMs = options.killGraceMs ?? 2000
    this.#isolation = options.isolation ?? 'caller'
    const entry = options.childEntry
    const share = options.shareSpare === true
    this.#releaseSpare = share ? retainSpare() : async () => {}
    const listener = { message: this.#onMessage.bind(this), exit: this.#onExit.bind(this) }
    this.#pool = new CallerPool({
      maxProcesses: Math.max(1, options.maxProcesses ?? 8),
      idleMs: options.idleMs ?? 60_000,
      spawn: async () => {
        const found = entry !== undefined ? { ok: true as const, path: entry } : resolveChildEntry()
        if (!found.ok) return found.message
        const child = await spawnChild(share, found.path, this.#config, listener)
        // A child holds the caller's event loop only while runs are in flight in it.
        if (typeof child !== 'string') child.hold(false)
        return child
      },
    })
  }

  get processes(): { leased: number; spare: boolean } {
    return this.#pool.size
  }

  pidOf(callerId?: string): number | undefined {
    return this.#pool.childOf(callerId ?? DEFAULT_CALLER)?.pid
  }

  async start(): Promise<void> {
    if (!this.#closed) await this.#pool.warm()
  }

  ready(): Promise<string | undefined> {
    return this.#pool.warm()
  }

  async run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    try {
      return await this.#run(request, host, signal)
    } catch (e) {
      const message = `the isolate sandbox failed: ${e instanceof Error ? e.message : String(e)}`
      return { ok: false, error: { kind: 'runtime', message }, droppedOutputBytes: 0 }
    }
  }

  /** Frees a session's realm in the child that holds it (a no-op for a session it does not know). */
  async endSession(id: string): Promise<void> {
    const held = this.#sessions.get(id)
    if (!held) return
    this.#sessions.delete(id)
    held.lease.sessions.delete(id)
    if (held.child.alive) held.child.send([M.endSession, id])
  }

  /** A session's realm is (or is about to be) in this child: remember where, so endSession reaches it. */
  #holdSession(id: string, child: SupervisedChild, lease: Lease): void {
    const old = this.#sessions.get(id)
    if (old && old.child !== child) {
      old.lease.sessions.delete(id)
      if (old.child.alive) old.child.send([M.endSession, id])
    }
    this.#sessions.set(id, { child, lease })
    lease.sessions.add(id)
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    return (this.#closing ??= this.#close())
  }

  async #close(): Promise<void> {
    this.#closed = true
    // Hold the event loop until every child is really gone, whatever state each is in (starting, running,
    // being killed): a caller that awaits close() as its last act would otherwise exit first (code 13).
    const keepAlive = setInterval(() => {}, MAX_TIMER_MS)
    try {
      for (const run of this.#runs.values()) this.#settle(run, stoppedOutcome('aborted', run.limits))
      await Promise.all([this.#pool.close(), this.#releaseSpare()])
    } finally {
      clearInterval(keepAlive)
    }
  }

  async #run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    const limits = normalizeLimits(request.limits, this.#graceMs)
    if (this.#closed) return unavailable('the isolate sandbox is closed')
    const id = this.#nextId++
    // A session keeps its child between runs (its realm lives there), whatever the isolation.
    const once = this.#isolation === 'run' && !request.session
    const caller =
      request.session && this.#isolation === 'run'
        ? `session:${request.session.id}`
        : once
          ? `run:${id}`
          : (request.callerId ?? DEFAULT_CALLER)
    // A child that dies between being handed out and taking the run is replaced; a few times at most.
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) return stoppedOutcome('aborted', limits)
      const lease = await this.#pool.acquire(caller, signal, once)
      // 'closed': close() came while this run waited for a process; it was in flight, so it is aborted.
      if (lease === 'aborted' || lease === 'closed') return stoppedOutcome('aborted', limits)
      const child = await lease.ready
      if (typeof child === 'string' || this.#closed || signal.aborted || !child.alive) {
        this.#pool.release(lease)
        if (typeof child === 'string') return unavailable(child)
        if (this.#closed || signal.aborted) return stoppedOutcome('aborted', limits)
        if (attempt >= 2) return unavailable('the sandbox process keeps dying before a run can start')
        continue
      }
      return this.#start(id, child, lease, request, host, signal, limits)
    }
  }

  #start(
    id: number,
    child: SupervisedChild,
    lease: Lease,
    request: SandboxRunRequest,
    host: SandboxHost,
    signal: AbortSignal,
    limits: SandboxLimits,
  ): Promise<SandboxOutcome> {
    return new Promise<SandboxOutcome>((resolve) => {
      const onAbort = () => this.#giveUp(run, 'aborted', this.#graceMs)
      const run: InFlight = {
        id,
        child,
        lease,
        host,
        limits,
        resolve,
        settled: false,
        reason: undefined,
        backstop: undefined,
        clock: undefined,
        detach: () => signal.removeEventListener('abort', onAbort),
        answers: undefined,
        open: 0,
      }
      this.#runs.set(id, run)
      signal.addEventListener('abort', onAbort, { once: true })
      // The child enforces both budgets; these only catch a child that stops answering.
      run.clock = new ProgramClock(limits.timeoutMs + this.#graceMs, () => this.#giveUp(run, 'timeout', 0))
      run.backstop = setTimeout(() => this.#giveUp(run, 'deadline', 0), limits.deadlineMs! + this.#graceMs)
      child.hold(true)
      if (request.session) this.#holdSession(request.session.id, child, lease)
      const session = request.session ? { id: request.session.id, realm: request.session.realm } : undefined
      child.send([M.run, id, request.js, [...request.toolNames], limits, session, request.entropy])
      // Calls held for their type check: the program's clock stands still in the child until they go.
      host.onHold?.((holding) => {
        if (this.#runs.get(id) === run && child.alive) child.send([M.hold, id, holding])
      })
    })
  }

  /**
   * Stop waiting for a run. An abort is answered now and the child told to dispose the isolate; if it does
   * not confirm within the grace period, it is killed. A run still silent past deadline plus grace means
   * the child itself is stuck: it is killed now, and the run ends as a timeout when it is gone.
   */
  #giveUp(run: InFlight, reason: 'timeout' | 'deadline' | 'aborted', graceMs: number): void {
    if (!this.#runs.has(run.id)) return
    run.reason ??= reason
    const kill = () => {
      if (!this.#runs.has(run.id)) return
      this.#killedBecause.set(run.child, 'another run in it stopped answering')
      run.child.kill()
    }
    clearTimeout(run.backstop)
    run.clock?.dispose()
    if (reason !== 'aborted') return kill()
    this.#settle(run, stoppedOutcome('aborted', run.limits))
    run.child.send([M.abort, run.id])
    run.backstop = setTimeout(kill, graceMs)
  }

  #onMessage(message: FromChild, child: SupervisedChild): void {
    if (!Array.isArray(message) || message[0] === M.ready) return
    const run = this.#runs.get(message[1])
    if (!run || run.child !== child) return
    const kind = message[0]
    const logs = kind === M.log ? message[2] : message[3]
    if (Array.isArray(logs) && !run.settled) deliverLogs(run.host, logs)
    switch (kind) {
      case M.log:
        return
      case M.call: {
        const calls = message[2]
        if (run.settled || !Array.isArray(calls)) return
        for (let i = 0; i < calls.length; i++) {
          const call: unknown = calls[i]
          // The child is this package's code, but the isolates in it are not: a malformed call is dropped.
          if (!Array.isArray(call)) continue
          // Indexed, not destructured: array destructuring walks an iterator (objects per call until optimised).
          const callId: unknown = call[0]
          const name: unknown = call[1]
          const argsJson: unknown = call[2]
          if (typeof callId !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') continue
          run.open++
          run.clock?.callStarted()
          callHost(run.host, name, argsJson, (text) => {
            run.clock?.callSettled()
            this.#answer(run, callId, text)
          })
        }
        return
      }
      case M.done: {
        const outcome: unknown = message[2]
        const readable = typeof outcome === 'object' && outcome !== null && typeof (outcome as { ok?: unknown }).ok === 'boolean'
        this.#finish(run, readable ? (outcome as SandboxOutcome) : unreadable())
        return
      }
    }
  }

  /**
   * Send an answer to the child. The answer to the only call open goes at once, alone (a sequential call
   * waits for nothing, and costs this loop no extra turn); with other calls open, answers wait for the
   * end of the turn, to go with the rest that settle in it (a fan-out).
   */
  #answer(run: InFlight, callId: number, text: string): void {
    run.open--
    if (this.#runs.get(run.id) !== run) return
    if (!run.answers && run.open === 0) {
      run.child.send([M.result, run.id, [[callId, text]]])
      return
    }
    if (run.answers) {
      run.answers.push([callId, text])
      return
    }
    run.answers = [[callId, text]]
    setImmediate(() => {
      const results = run.answers
      run.answers = undefined
      if (results?.length && this.#runs.get(run.id) === run) run.child.send([M.result, run.id, results])
    })
  }

  #onExit(exit: ChildExit, child: SupervisedChild): void {
    this.#pool.forget(child)
    // Its session realms died with it: their next runs are told `session_lost` by the new child.
    for (const [id, held] of this.#sessions) if (held.child === child) this.#sessions.delete(id)
    const why = this.#killedBecause.get(child) ?? exit.broken
    const dying = [...this.#runs.values()].filter((run) => run.child === child)
    for (const run of dying) {
      if (run.reason) this.#finish(run, stoppedOutcome(run.reason, run.limits))
      else if (exit.outOfMemory && !exit.broken) {
        // V8 does not say which isolate ran out; with company, say so rather than blame this run alone.
        const outcome = stoppedOutcome('memory', run.limits)
        if (!outcome.ok && dying.length > 1)
          outcome.error.message += ` (or one of ${dying.length - 1} other runs of the same caller beside it did: they share one sandbox process, and it ran out of memory)`
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
    run.clock?.dispose()
    if (!this.#runs.delete(run.id)) return
    this.#settle(run, outcome)
    if (!this.#busy(run.child)) run.child.hold(false)
    this.#pool.release(run.lease)
  }

  /** A run is still in flight in `child` (a loop, not a copy of every run's entry per finished run). */
  #busy(child: SupervisedChild): boolean {
    for (const r of this.#runs.values()) if (r.child === child) return true
    return false
  }

  #settle(run: InFlight, outcome: SandboxOutcome): void {
    if (run.settled) return
    run.settled = true
    run.detach()
    run.resolve(outcome)
  }
}

const unreadable = (): SandboxOutcome => ({
  ok: false,
  error: { kind: 'runtime', message: 'the sandbox process sent an unreadable outcome' },
  droppedOutputBytes: 0,
})

/** The whole run's wall clock when the request sets none (the runtime always does). */
const DEFAULT_DEADLINE_MS = 600_000

function normalizeLimits(limits: SandboxLimits, graceMs: number): SandboxLimits {
  const pick = (n: number, fallback: number, min: number) => (Number.isFinite(n) ? Math.max(min, n) : fallback)
  return {
    // Clamped so that deadline plus grace still fits a Node timer (above 2^31-1 ms it fires at once).
    timeoutMs: Math.min(pick(limits.timeoutMs, 30_000, 1), MAX_TIMER_MS - graceMs),
    deadlineMs: Math.min(pick(limits.deadlineMs ?? DEFAULT_DEADLINE_MS, DEFAULT_DEADLINE_MS, 1), MAX_TIMER_MS - graceMs),
    // isolated-vm's floor is 8 MB.
    memoryMb: Math.round(pick(limits.memoryMb, 128, 8)),
    maxOutputBytes: pick(limits.maxOutputBytes, 1 << 20, 0),
  }
}

const HOST_FAILED = JSON.stringify({ ok: false, error: { code: 'EIO', message: 'the host failed to answer the tool call' } })

/**
 * Hands the host's answer, as JSON text, to `answered`; a host that breaks its promise never to reject still
 * gets an answer. One `then` per call: an async wrapper and a `then` on it were two promises and more turns.
 */
function callHost(host: SandboxHost, name: string, argsJson: string, answered: (text: string) => void): void {
  let asked: Promise<string>
  try {
    asked = Promise.resolve(host.callTool(name, argsJson))
  } catch (e) {
    asked = Promise.reject(e)
  }
  asked.then(
    (text) => answered(typeof text === 'string' ? text : HOST_FAILED),
    () => answered(HOST_FAILED),
  )
}

function deliverLogs(host: SandboxHost, logs: LogEntry[]): void {
  try {
    host.log(logs)
  } catch {
    // A host's logging bug must not end the run.
  }
}

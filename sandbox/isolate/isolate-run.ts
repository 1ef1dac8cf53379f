/**
 * One run inside the child process: a fresh context in a pooled isolate (a realm, realm.ts: locked down, the
 * prelude evaluated; usually prepared ahead), the program as its own script, the glue, a watchdog, and the
 * mapping of whatever happened to a SandboxOutcome.
 *
 * isolated-vm's `timeout` only bounds a synchronous call, so the watchdog bounds the whole run (awaited
 * promises included) by disposing the isolate; a disposed isolate rejects every pending call into it.
 */
import ivm from 'isolated-vm'
import { MAX_ARGS_CHARS_IN_FLIGHT, MAX_CALLS_IN_FLIGHT, TOO_MANY_CALLS_JSON } from '../../guest/limits.js'
import type { Outcome as PreludeOutcome } from '../../guest/outcome.js'
import type { SandboxEntropy, SandboxLimits, SandboxOutcome } from '../types.js'
import { ProgramClock } from '../program-clock.js'
import { type PooledIsolate, takeRealm } from './pooled-isolate.js'
import { memoryLimitMessage, stoppedOutcome, timerMs } from './protocol.js'
import { startInline, startOnIsolateThread } from './glue.js'
import { type Armed, armRealm, type Control, type Realm, releaseRealm } from './realm.js'

export const PROGRAM_FILENAME = 'program.js'
/** How often a long run's CPU time is checked against the limit (wall time has its own timer). */
const CPU_CHECK_MS = 250
/** Host timers a run may hold (the prelude allows 1000 plus its own idle check). */
const MAX_TIMERS = 1100

/** What the run needs from the child: where calls and console lines go. */
export interface RunIO {
  call(callId: number, name: string, argsJson: string): void
  log(level: string, text: string): void
  /**
   * Asked when the program starts: true when nothing else in this process needs its thread now (no other
   * run in it), so the program's synchronous start may run on it (glue.ts's startInline). Unset: never.
   */
  startInline?(): boolean
}

type StopReason = 'timeout' | 'deadline' | 'memory' | 'aborted'

export interface RunRequest {
  js: string
  toolNames: string[]
  limits: SandboxLimits
  /** A session run: its persistent realm, set up once (session-realms.ts); kept, not released, after the run. */
  realm?: Realm
  entropy?: SandboxEntropy
  /** Of the deadline, what an earlier start of this request already used (child.ts's start again), in ms. */
  spentMs?: number
}

export class IsolateRun {
  readonly #entry: PooledIsolate
  readonly #request: RunRequest
  readonly #io: RunIO
  #stopped: StopReason | undefined
  #control: Control | undefined
  /** Calls the program issued that the host has not answered yet, with the size of their arguments. */
  readonly #pending = new Map<number, number>()
  #argsCharsInFlight = 0
  #finished = false
  /** Console lines received from the prelude; the outcome says how many it sent (see #drainLogs). */
  #logsReceived = 0
  /** The program's timers (setTimeout/setInterval in the prelude), as host timers; all cleared at the end. */
  readonly #timers = new Map<number, () => void>()
  /** The realm's glue and callbacks, armed for this run's config (realm.ts). */
  #armed: Armed | undefined
  /** The program's own time (paused while a call is pending); set for the duration of execute(). */
  #clock: ProgramClock | undefined
  /** Set when the inline start ran past its slice (glue.ts's startInline): the run is to be started again. */
  #startAgain = false
  /** Started on the child's thread (startInline), and the isolate's own thread given no task since (#task). */
  #onlyInline = false

  constructor(entry: PooledIsolate, request: RunRequest, io: RunIO) {
    this.#entry = entry
    this.#request = request
    this.#io = io
  }

  /** Calls issued and not answered yet. */
  get callsInFlight(): number {
    return this.#pending.size
  }

  /**
   * The program's start was cut off on the child's thread (glue.ts's startInline): nothing of the run left the
   * process, its isolate is disposed; the child runs the request again without startInline. Its outcome means nothing.
   */
  get startAgain(): boolean {
    return this.#startAgain
  }

  /** True when the isolate can serve another run: no limit hit, nothing left running in it. */
  get reusable(): boolean {
    return this.#finished && this.#stopped === undefined && this.#pending.size === 0 && !this.#entry.isolate.isDisposed
  }

  /**
   * Reusable, and all of the program ran in the inline start's synchronous calls (which return with its microtasks
   * drained), its isolate's thread never given a task: nothing of it can still run there (pool.ts's release).
   */
  get idleForCertain(): boolean {
    return this.#onlyInline && this.reusable
  }

  /** Stop the run now: the isolate is disposed, so the program cannot run one more instruction. */
  stop(reason: StopReason): void {
    if (this.#finished || this.#stopped) return
    this.#stopped = reason
    if (!this.#entry.isolate.isDisposed) this.#entry.isolate.dispose()
  }

  /**
   * Settle pending tool calls with the host's answers (JSON text), in order, as one task in the isolate.
   * Late answers, unknown ids and anything that is not an answer are dropped.
   */
  deliver(answers: unknown): void {
    if (this.#finished || !this.#control || !Array.isArray(answers)) return
    const flat: Array<number | string> = []
    for (const answer of answers as unknown[]) {
      if (!Array.isArray(answer)) continue
      const [callId, text] = answer as unknown[]
      if (typeof callId !== 'number' || typeof text !== 'string') continue
      const size = this.#pending.get(callId)
      if (size === undefined) continue
      this.#pending.delete(callId)
      this.#argsCharsInFlight -= size
      this.#clock?.callSettled()
      flat.push(callId, text)
    }
    if (flat.length > 0) this.#deliverTask(flat)
  }

  /** The host holds the run's calls for their type check, or let them go: the program's clock stands still between. */
  hold(holding: boolean): void {
    if (this.#finished || !this.#control) return
    this.#task(() => this.#control?.applyIgnored(undefined, ['hold', holding ? 1 : 0]))
  }

  /** Give the isolate a task: deliver answers (`[callId, text, …]`; one answer crosses as two plain arguments). */
  #deliverTask(flat: Array<number | string>): void {
    this.#task(() =>
      this.#control?.applyIgnored(
        undefined,
        flat.length === 2 ? ['deliver', flat[0]!, flat[1]!] : ['deliver', new ivm.ExternalCopy(flat).copyInto({ release: true })],
      ),
    )
  }

  /**
   * Give the isolate a task: fire a timer, with the glue's tick right behind it (a zero-delay timer the
   * timer's callback arms fires in the isolate's next task, without a hop back here).
   */
  #timerTask(id: number): void {
    this.#task(() => {
      this.#control?.applyIgnored(undefined, ['timer', id])
      this.#control?.applyIgnored(undefined, ['tick'])
    })
  }

  #task(give: () => void): void {
    this.#onlyInline = false
    try {
      give()
    } catch {
      // the isolate was disposed (a limit or an abort): the run is ending
    }
  }

  /** Run to the end. Never rejects. */
  async execute(): Promise<SandboxOutcome> {
    const { isolate } = this.#entry
    const { limits } = this.#request
    // Stopped before it began (an abort that arrived while the child waited for an isolate: the type
    // check's blocking verdict aborts a run right after it starts): the isolate is gone, and reading its
    // cpuTime below would throw out of this function and take the whole child down.
    if (this.#stopped || isolate.isDisposed) {
      this.#finished = true
      this.#stopped ??= 'aborted'
      return this.#stoppedOutcome()
    }
    // Two budgets: the program's own time (timeoutMs, paused while a call is pending) and the whole run's
    // wall clock (deadlineMs, whatever it waits on).
    const clock = new ProgramClock(limits.timeoutMs, () => this.stop('timeout'))
    this.#clock = clock
    const deadlineMs = limits.deadlineMs ?? Number.POSITIVE_INFINITY
    const deadline = Date.now() + deadlineMs - (this.#request.spentMs ?? 0)
    // Every isolated-vm `timeout` is taken from here: a whole number of ms within a timer's range.
    const remaining = () => timerMs(Math.min(clock.remaining(), deadline - Date.now()))
    const cpuStart = isolate.cpuTime
    // A longer delay would overflow Node's timer and fire at once; 24.8 days is "no limit" for a run.
    const wall = Number.isFinite(deadlineMs) ? setTimeout(() => this.stop('deadline'), timerMs(deadline - Date.now())) : undefined
    const cpu = setInterval(() => {
      // cpuTime throws once the isolate is disposed (memory limit), before this run's finally clears us.
      if (isolate.isDisposed) return
      try {
        if (Number(isolate.cpuTime - cpuStart) / 1e6 > limits.timeoutMs) this.stop('timeout')
      } catch {
        // disposed between the check and the read
      }
    }, CPU_CHECK_MS)
    let realm: Realm | undefined
    try {
      // Setup runs synchronously on this thread: the isolate is idle (fresh, or reused only when nothing
      // was left running in it), none of it runs program code, and each step has a timeout anyway.
      // That saves a thread hop per step; the program itself runs asynchronously below. The context
      // (locked down, prelude and glue evaluated) was usually prepared ahead by the pool (realm.ts); a
      // session run brings its persistent one (session-realms.ts), kept after the run. Either way the run
      // has a new glue and new prelude state, set up for its own config: a pooled realm was usually armed
      // ahead with the last run's (the same tool names and cap), else it is armed here (realm.ts).
      const session = this.#request.realm
      const config = runConfig(this.#request)
      let armed: Armed
      if (session) {
        realm = session
        armed = armRealm(session, config, remaining())
      } else {
        const taken = takeRealm(this.#entry, config, remaining())
        realm = taken
        armed = taken.armed
      }
      this.#armed = armed
      const { context } = realm
      let script: ivm.Script
      try {
        script = isolate.compileScriptSync(this.#request.js, { filename: PROGRAM_FILENAME })
      } catch (e) {
        if (this.#stopped) throw e
        // V8 puts the position in the message ("… [program.js:3:9]"); as the stack, the runtime maps it.
        const message = errorText(e)
        return { ok: false, error: { kind: 'compile', message, stack: message }, droppedOutputBytes: 0 }
      }
      const programFn = script.runSync(context, { reference: true, timeout: remaining() })
      script.release()
      armed.attach({
        send: (callId, name, argsJson) => {
          if (typeof callId !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
          if (this.#finished || this.#stopped) return
          // The guest's bridge refuses calls past the same limits (guest/limits.ts); this process checks them
          // again so that its own heap stays bounded whatever the isolate sends.
          if (this.#pending.size >= MAX_CALLS_IN_FLIGHT || this.#argsCharsInFlight + argsJson.length > MAX_ARGS_CHARS_IN_FLIGHT) {
            this.#deliverTask([callId, TOO_MANY_CALLS_JSON])
            return
          }
          this.#pending.set(callId, argsJson.length)
          this.#argsCharsInFlight += argsJson.length
          this.#clock?.callStarted()
          this.#io.call(callId, name, argsJson)
        },
        log: (level, text) => {
          if (typeof level === 'string' && typeof text === 'string' && !this.#finished) {
            this.#logsReceived++
            this.#io.log(level, text)
          }
        },
        // Only numbers cross; the callback fires within the run's own deadline and never after it ends.
        timer: (op, id, ms) => {
          if (typeof id !== 'number' || this.#finished || this.#stopped) return
          this.#timers.get(id)?.()
          this.#timers.delete(id)
          if (op !== 'set' || this.#timers.size >= MAX_TIMERS) return
          const delay = Math.max(0, typeof ms === 'number' && Number.isFinite(ms) ? ms : 0)
          // A timer due after the run's deadline can never fire in it: it is not scheduled at all.
          if (delay > remaining()) return
          const fire = () => {
            this.#timers.delete(id)
            if (!this.#finished && !this.#stopped) this.#timerTask(id)
          }
          // Delay 0 (armed where no tick follows, glue.ts; the end-of-run idle check after a tool call's
          // answer) is the next macrotask: Node's setTimeout would make it at least 1 ms.
          if (delay < 1) {
            const immediate = setImmediate(fire)
            this.#timers.set(id, () => clearImmediate(immediate))
          } else {
            const timeout = setTimeout(fire, delay)
            this.#timers.set(id, () => clearTimeout(timeout))
          }
        },
      })
      const control = armed.control
      this.#control = control
      // `release`: the reference goes once the function is handed over. Kept, it held the run's whole
      // context (~0.1–0.2 MB) alive after the run, until this process's own collector got to the handle.
      const program = programFn.derefInto({ release: true })
      const inline = this.#io.startInline?.() === true
      this.#onlyInline = inline
      const started = inline
        ? startInline(control, program, remaining, () => void (this.#startAgain = true))
        : startOnIsolateThread(control, program, remaining)
      const text: unknown = await started
      if (this.#stopped) return this.#stoppedOutcome()
      // Parsed once (the value's JSON rides inside it: a large value was parsed twice).
      const parsed = parseOutcome(text)
      // A program that threw ends at once, calls it made still out. On the isolate's thread those calls reach
      // this thread as tasks ahead of the answer; after an inline start they are queued behind it, and would
      // be detached (finally) unsent. So the run waits for the loop to deliver them, as the other path does.
      if (inline && parsed?.ok === false) await afterQueuedCallbacks()
      if (this.#stopped) return this.#stoppedOutcome()
      await this.#drainLogs(parsed)
      return fromPrelude(parsed, limits)
    } catch (e) {
      if (this.#startAgain) {
        // The finally disposes the isolate the cut-off start ran in.
        this.#stopped ??= 'timeout'
        return this.#stoppedOutcome()
      }
      if (this.#stopped) return this.#stoppedOutcome()
      const message = errorText(e)
      // Past its first await the program runs in tasks whose results are ignored (deliver, timer, tick): when
      // one of them hits the memory limit, isolated-vm disposes the isolate and 'start' only says "Promise was
      // abandoned". stop() sets #stopped before it disposes; a disposed isolate without it is the limit's doing
      // (or a session ended mid-run, which the host does only after aborting the run).
      if (/memory limit/i.test(message) || isolate.isDisposed) {
        this.#stopped = 'memory'
        return this.#stoppedOutcome()
      }
      if (/timed out/i.test(message)) {
        this.#stopped = 'timeout'
        return this.#stoppedOutcome()
      }
      // The prelude catches everything the program throws; what still escapes `start` is a rejection the
      // program left unhandled, which isolated-vm raises into the next call into the isolate (its #273).
      const stack = e instanceof Error && typeof e.stack === 'string' ? e.stack : undefined
      return {
        ok: false,
        error: { kind: 'runtime', message: `unhandled promise rejection: ${message}`, ...(stack ? { stack } : {}) },
        droppedOutputBytes: 0,
      }
    } finally {
      this.#finished = true
      for (const cancel of this.#timers.values()) cancel()
      this.#timers.clear()
      clock.dispose()
      clearTimeout(wall)
      clearInterval(cpu)
      this.#armed?.attach(undefined)
      // A pooled realm's control goes with the realm; a session's realm is armed anew each run.
      if (!isolate.isDisposed && this.#armed && this.#request.realm) releaseQuietly(this.#armed.control)
      if (realm && !this.#request.realm) releaseRealm(realm, isolate)
      // A run that hit a limit leaves a disposed isolate; make sure of it whatever the path.
      if (this.#stopped && !isolate.isDisposed) isolate.dispose()
    }
  }

  /**
   * Console callbacks are fire-and-forget, and isolated-vm does not order them against the settling of
   * `start`: the last lines a program printed can still be queued when its outcome arrives. The prelude
   * counts what it sent; wait (briefly) until that many have arrived, so the last lines are never lost.
   */
  async #drainLogs(outcome: PreludeOutcome | undefined): Promise<void> {
    const lines: unknown = (outcome as { logLines?: unknown } | undefined)?.logLines
    const expected = typeof lines === 'number' ? lines : 0
    for (let waited = 0; this.#logsReceived < expected && waited < 500 && !this.#stopped; waited++) {
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  #stoppedOutcome(): SandboxOutcome {
    return stoppedOutcome(this.#stopped ?? 'aborted', this.#request.limits)
  }
}

/** The prelude's per-run config (realm.ts's armRealm) as JSON text: equal texts, equal setups. */
export function runConfig(request: RunRequest): string {
  return JSON.stringify({
    toolNames: request.toolNames,
    maxOutputBytes: request.limits.maxOutputBytes,
    ...(request.realm ? { session: true } : {}),
    ...(request.entropy ? { entropy: request.entropy } : {}),
  })
}

/** The prelude's outcome from its JSON text; undefined when it is not an object. */
function parseOutcome(text: unknown): PreludeOutcome | undefined {
  try {
    const parsed: unknown = JSON.parse(String(text))
    return typeof parsed === 'object' && parsed !== null ? (parsed as PreludeOutcome) : undefined
  } catch {
    return undefined
  }
}

/** Map the prelude's outcome to a SandboxOutcome; a memory RangeError the program did not catch is `memory`. */
/**
 * Resolves once isolated-vm's callbacks queued to this thread so far have run: they arrive through the loop's
 * poll phase, which the second of two immediates comes after (the first runs in this turn's check phase).
 */
function afterQueuedCallbacks(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
}

function fromPrelude(parsed: PreludeOutcome | undefined, limits: SandboxLimits): SandboxOutcome {
  if (parsed === undefined)
    return { ok: false, error: { kind: 'runtime', message: 'the sandbox returned an unreadable outcome' }, droppedOutputBytes: 0 }
  const dropped = typeof parsed.droppedOutputBytes === 'number' ? parsed.droppedOutputBytes : 0
  if (parsed.ok) {
    const outcome: SandboxOutcome = { ok: true, valueJson: parsed.valueJson, droppedOutputBytes: dropped }
    if (parsed.valueNote !== undefined) outcome.valueNote = parsed.valueNote
    if (Array.isArray(parsed.clock)) outcome.clock = parsed.clock
    return outcome
  }
  const { name, message, stack } = parsed.error
  const error: { kind: 'memory' | 'runtime'; message: string; stack?: string } = { kind: 'runtime', message: `${name}: ${message}` }
  if (name === 'RangeError' && /allocation failed/i.test(message)) {
    error.kind = 'memory'
    error.message += ` (${memoryLimitMessage(limits.memoryMb)})`
  }
  if (stack !== undefined) error.stack = stack
  return { ok: false, error, droppedOutputBytes: dropped, ...(Array.isArray(parsed.clock) ? { clock: parsed.clock } : {}) }
}

function releaseQuietly(reference: { release(): void }): void {
  try {
    reference.release()
  } catch {
    // disposed in between
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e)
}

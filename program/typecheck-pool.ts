/**
 * The host's side of the type check: a small process-wide pool of checker threads (typecheck-worker.ts).
 *
 * Why a pool shared by every runtime in the process: each thread holds a loaded TypeScript and a parsed lib
 * (much memory, slow to start), and checks are short; two threads let one caller's pathological program take
 * its budget while other callers' checks go on. A check that outlives its budget has its thread terminated
 * (the only way to stop synchronous compiler work) and answers `budget`; a thread that dies (out of memory,
 * a compiler crash) answers `crashed`. Neither ever blocks or throws into the host.
 *
 * The same threads run the whole program pipeline (normalise, prove the wrapper's shape, compile, check)
 * with the check on or off; a thread starts with the first request, never before. Nothing here imports
 * TypeScript: the compiler is loaded only inside the threads.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { type ResourceLimits, Worker } from 'node:worker_threads'
import { type Created, WarmPool } from '../vocabulary/warm-pool.js'
import type { CompiledText } from './compile.js'
import type { NormalisedProgram } from './normalise.js'
import type { ShapeResult } from './wrap.js'
import type {
  CheckerThreadData,
  CheckRequest,
  CheckResponse,
  CompiledMessage,
  NormalisedMessage,
  ParseAnswer,
  ParseTask,
  SessionPrepared,
  StageMessage,
  WarmedMessage,
} from './typecheck-protocol.js'
import type { TypeDiagnostic } from './typecheck.js'

export type PoolAnswer = (
  | { ok: true; diagnostics: TypeDiagnostic[]; parsed?: ParseAnswer }
  | { ok: false; reason: 'budget' | 'crashed'; message: string }
) & {
  /** The normalised program, when asked for and the thread got that far (even past the budget). */
  normalised?: NormalisedProgram
  /** The shape of the normalised program's wrapped text, sent with `normalised`. */
  shape?: ShapeResult
  /** A session cell: its bindings and the declarations after it (typed when the check answered). */
  session?: SessionPrepared
  /** The compiled program, when asked for (`normalise.compile`) and the thread got that far. */
  compiled?: CompiledText
}

/** What a run needs of a check-on request, sent by the thread before it type-checks (NormalisedMessage with the compiled program). */
export type PreparedParts = Pick<PoolAnswer, 'normalised' | 'shape' | 'compiled'>

interface Job {
  request: Omit<CheckRequest, 'id'>
  budgetMs: number
  resolve(answer: PoolAnswer): void
  /** Told the prepared program as soon as the thread has it compiled, while the check goes on (at most once). */
  onPrepared?: (parts: PreparedParts) => void
  /** Nobody waits on it (a warm-up ahead of need): it never keeps the process alive. */
  background?: boolean
}

interface Slot {
  worker: Worker
  /** The resource limits it was started with (worker.resourceLimits reports V8's resolved sizes, not what was asked). */
  limits: ResourceLimits
  job?: { id: number; timer?: NodeJS.Timeout; job: Job; parts: Parts }
}

/** What the thread has sent of a job's prepared program so far (an answer past the budget still carries it). */
type Parts = Pick<PoolAnswer, 'normalised' | 'shape' | 'session' | 'compiled'>

/** `into` gets each part `from` has; a part `from` lacks never erases one already there. */
function keepParts(into: Parts, from: Parts | undefined): void {
  for (const key of ['normalised', 'shape', 'session', 'compiled'] as const) if (from?.[key] !== undefined) into[key] = from[key] as never
}

const MAX_THREADS = Math.max(1, Math.min(2, availableParallelism()))
/**
 * An idle thread is ended after this long, so an idle process does not keep the compiler's memory — except
 * the last one while a runtime that checks is open (holdChecker): a new thread costs the next check-on run
 * a second or more (TypeScript and the lib loaded and parsed again, a cold JIT), and a person taking over a
 * minute to answer an agent is the common case. `CODEACT_CHECKER_IDLE_MS` sets it (read at each idle).
 */
const IDLE_MS = 60_000
const idleMs = (): number => {
  const set = Number(process.env.CODEACT_CHECKER_IDLE_MS)
  return Number.isFinite(set) && set >= 0 ? set : IDLE_MS
}
/** Open runtimes that check programs (holdChecker): while there is one, the last idle thread stays. */
let holders = 0
/** A check still running after this long may be a slow one: start a spare thread for the next caller. */
const SPARE_AFTER_MS = 200
/** A thread's heap cap: a program that makes the compiler allocate past this ends its own check. */
const HEAP_MB = 1536
/** A thread that only prepares check-off programs: left to V8, its young generation grows and stays resident. */
const YOUNG_MB = 4
/**
 * A thread of a process that checks programs keeps V8's default young generation: a check allocates many
 * short-lived types and links, and a small one promoted what a check still held (bench/runtime-price.ts).
 */
const checkingLimits: ResourceLimits = { maxOldGenerationSizeMb: HEAP_MB }
const preparingLimits: ResourceLimits = { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: YOUNG_MB }

/** A thread says ready within this (TypeScript loaded, and the lib parsed when checks are asked). */
const START_TIMEOUT_MS = 60_000
/** terminate() answers at once unless the thread is stuck in native code: the pool stops waiting after this. */
const STOP_TIMEOUT_MS = 5_000

/** The threads that said ready and are not ended (for poolYoungGenerations). */
const threads = new Set<Slot>()
/**
 * The lifecycle (vocabulary/warm-pool.ts): no thread is started ahead (warm 0), an idle one ends after
 * idleMs() except the last while a check-on runtime is open (keep), and a thread past its budget or dead is
 * retired. When a thread is started is this file's (pump, grow): jobs queue here, not in the pool.
 */
const pool = new WarmPool<Slot>(
  { create: startThread, destroy: endThread },
  {
    name: "the checker's thread",
    warm: 0,
    max: MAX_THREADS,
    idleMs,
    keep: () => (holders > 0 ? 1 : 0),
    startTimeoutMs: START_TIMEOUT_MS,
    stopTimeoutMs: STOP_TIMEOUT_MS,
  },
)
const queue: Job[] = []
/** A thread is being started for the queue (grow). */
let growing = false
let nextId = 0
/** Requests posted to checker threads in this process (a warm run makes one, the check on or off). */
let posted = 0
/** Checker threads started in this process. */
let started = 0
/** A check was asked for in this process: threads parse the lib as they start (else they never need it). */
let checksAsked = false

/**
 * Checks `source` against `declarations` in a checker thread, within `budgetMs` of thread time; with
 * `normalise`, normalises it there first, proves its wrapped text is one function (`shape`) and checks the
 * normalised text (returned in `normalised`): preparing, then the check, each get `budgetMs`. Without
 * `declarations`, nothing is type-checked.
 */
export function checkInPool(
  declarations: string | undefined,
  source: string,
  budgetMs: number,
  normalise?: { allowNodeImports: boolean; compile?: boolean },
  nodeTypes = false,
  session?: { declarations: string },
  onPrepared?: (parts: PreparedParts) => void,
): Promise<PoolAnswer> {
  if (declarations !== undefined) checksAsked = true
  return new Promise((resolve) => {
    queue.push({
      ...(onPrepared ? { onPrepared } : {}),
      request: {
        ...(declarations !== undefined ? { declarations } : {}),
        source,
        ...(normalise ? { normalise } : {}),
        ...(nodeTypes ? { nodeTypes } : {}),
        ...(session ? { session } : {}),
      },
      budgetMs,
      resolve,
    })
    pump()
  })
}

/** Parse work (a shape check, finding namespaces) in a checker thread, within `budgetMs`. */
export function parseInPool(task: ParseTask, budgetMs: number): Promise<PoolAnswer> {
  return new Promise((resolve) => {
    queue.push({ request: { task }, budgetMs, resolve })
    pump()
  })
}

/** How many requests this process has posted to checker threads (tests count a run's). */
export function poolRequestsPosted(): number {
  return posted
}

/** How many checker threads this process has started (tests: a check-off runtime whose programs the host prepares starts none). */
export function poolThreadsStarted(): number {
  return started
}

/** The young generation (MB) of each running checker thread; undefined: V8's default (tests: a checking thread is not capped). */
export function poolYoungGenerations(): (number | undefined)[] {
  return [...threads].map((s) => s.limits.maxYoungGenerationSizeMb)
}

/**
 * Starts a thread and builds the checker for `declarations` in it, so the first real check is warm;
 * `background`: a warm-up ahead of need (the CLI's, before it knows its run), which never holds the process.
 */
export function warmPool(declarations: string, nodeTypes = false, background = false): Promise<void> {
  checksAsked = true
  return new Promise((resolve) => {
    queue.push({
      request: { declarations, ...(nodeTypes ? { nodeTypes } : {}) },
      budgetMs: 0,
      resolve: () => resolve(),
      ...(background ? { background } : {}),
    })
    pump()
  })
}

function pump(): void {
  while (queue.length > 0) {
    const slot = pool.takeIdle()
    if (slot === undefined) {
      // Start another thread only when every existing one is busy (or none exists). Preparing a program
      // (no check) is quick, so one thread keeps up with many runs in flight: for that work a second
      // thread starts only when a job has held its thread for SPARE_AFTER_MS (assign's timer).
      const { busy, starting } = pool.counts()
      if (busy + starting === 0 || (busy < MAX_THREADS && starting === 0 && checkWaiting())) grow()
      return
    }
    const job = queue.shift()
    if (job !== undefined) assign(slot, job)
    else pool.give(slot)
  }
}

/** One more thread, for the first job queued when it is ready; one that could not start answers every queued job why. */
function grow(): void {
  if (growing) return
  growing = true
  void pool.take().then((taken) => {
    growing = false
    if (!taken.ok) {
      for (const job of queue.splice(0)) job.resolve({ ok: false, reason: 'crashed', message: taken.message })
      return
    }
    const job = queue.shift()
    if (job !== undefined) assign(taken.resource, job)
    else pool.give(taken.resource)
    pump()
  })
}

/** A type check is waiting (worth a second thread as soon as checks queue). */
function checkWaiting(): boolean {
  return queue.some((job) => job.request.declarations !== undefined)
}

function assign(slot: Slot, job: Job): void {
  const id = ++nextId
  if (!job.background) slot.worker.ref() // a check in flight keeps the process alive, as the caller awaits it
  const timer = job.budgetMs > 0 ? budgetTimer(slot, job.budgetMs) : undefined
  slot.job = { id, job, parts: {}, ...(timer ? { timer } : {}) }
  posted++
  slot.worker.postMessage({ id, ...job.request } satisfies CheckRequest)
  // So that one caller's slow check never makes the next caller wait for a cold thread as well.
  if (job.budgetMs > 0)
    setTimeout(() => {
      const { idle, busy, starting } = pool.counts()
      if (slot.job?.id === id && idle === 0 && busy + starting < MAX_THREADS) grow()
    }, SPARE_AFTER_MS).unref()
}

/** Ends the slot's thread (and answers its job `budget`) after `budgetMs`. */
function budgetTimer(slot: Slot, budgetMs: number): NodeJS.Timeout {
  return setTimeout(
    () => retire(slot, { ok: false, reason: 'budget', message: `the checker's thread took longer than its ${budgetMs} ms budget` }),
    budgetMs,
  )
}

/** The pool's create: a thread, answered once it says ready (or why it could not start). */
function startThread(): Promise<Created<Slot>> {
  const path = workerPath()
  if (path === undefined) return Promise.resolve({ ok: false, message: 'the type checker is not built (run `npm run build`)' })
  // execArgv: [] — a worker inherits the parent's by default, and `node -e SCRIPT` puts the script there,
  // so the thread would run the embedder's script again instead of the checker (and never answer).
  const workerData: CheckerThreadData = { warmChecker: checksAsked }
  const limits = checksAsked ? checkingLimits : preparingLimits
  const worker = new Worker(path, { execArgv: [], workerData, resourceLimits: limits })
  const slot: Slot = { worker, limits }
  started++
  worker.unref()
  return new Promise((resolve) => {
    let ready = false
    worker.on('message', (message: ThreadMessage) => {
      if (!('ready' in message)) return answer(slot, message)
      ready = true
      worker.unref() // a listener added on its port refs it again; an idle thread never holds the process
      threads.add(slot)
      resolve({ ok: true, resource: slot })
      // Its grow may have been served by a thread given back meanwhile: then it is idle, and the queue is told.
      setImmediate(pump)
    })
    const onGone = (error?: unknown) => {
      const why = error instanceof Error ? error.message : 'the type checker thread stopped'
      // A thread that dies before it is ready (a broken install: a module it imports is missing) would die
      // again: the waiting jobs get why (grow), instead of a new thread each (which spun, unanswered).
      if (!ready) resolve({ ok: false, message: `the checker's thread could not start (${why.split('\n')[0]}); reinstall with \`npm ci\`` })
      else if (threads.has(slot)) retire(slot, { ok: false, reason: 'crashed', message: why })
    }
    worker.on('error', onGone)
    worker.on('exit', () => onGone())
  })
}

function endThread(slot: Slot): Promise<unknown> {
  threads.delete(slot)
  return slot.worker.terminate().catch(() => undefined)
}

type ThreadMessage = CheckResponse | NormalisedMessage | CompiledMessage | WarmedMessage | StageMessage | { ready: true }

/** What a ready thread sends about its job: stages, the prepared parts, and last the answer. */
function answer(slot: Slot, message: Exclude<ThreadMessage, { ready: true }>): void {
  if ('warmed' in message || 'stage' in message) {
    // The lib was parsed for this request, or a long stage of it is done: what follows gets its whole
    // budget. While the thread only waits on esbuild's process, no budget runs.
    const current = slot.job
    if (current?.id !== message.id || current.job.budgetMs <= 0) return
    clearTimeout(current.timer)
    current.timer = 'stage' in message && message.stage === 'waiting' ? undefined : budgetTimer(slot, current.job.budgetMs)
    return
  }
  if ('normalised' in message) return prepared(slot, message)
  if ('compiled' in message) {
    if (slot.job?.id === message.id) slot.job.parts.compiled = message.compiled
    return
  }
  const current = slot.job
  if (current === undefined || current.id !== message.id) return
  clearTimeout(current.timer)
  slot.job = undefined
  const parts = current.parts
  if (message.ok) keepParts(parts, message.prepared)
  if (message.ok && message.session && parts.session) parts.session = { ...parts.session, ...message.session }
  current.job.resolve(
    message.ok
      ? { ok: true, diagnostics: message.diagnostics, ...(message.parsed ? { parsed: message.parsed } : {}), ...parts }
      : { ok: false, reason: 'crashed', message: message.message, ...parts },
  )
  slot.worker.unref()
  pool.give(slot)
  pump()
}

function prepared(slot: Slot, message: NormalisedMessage): void {
  const current = slot.job
  if (current?.id !== message.id) return
  keepParts(current.parts, message)
  // The program is ready to run before its check is done: a caller that can hold the run's effects
  // until the verdict starts it now (runtime/run-code.ts). Without the compiled program (esbuild's,
  // sent after the check) there is nothing to start early.
  if (message.compiled && !message.normalised.problem) tellPrepared(current.job, current.parts)
  // Preparing (normalise + shape check) had the budget; the type check now gets its own, so a slow
  // preparation never leaves the check no time, and a slow check never undoes a finished preparation.
  if (current.timer !== undefined) {
    clearTimeout(current.timer)
    current.timer = budgetTimer(slot, current.job.budgetMs)
  }
}

function tellPrepared(job: Job, parts: PreparedParts): void {
  const onPrepared = job.onPrepared
  if (onPrepared === undefined) return
  job.onPrepared = undefined
  const { normalised, shape, compiled } = parts
  try {
    onPrepared({ ...(normalised ? { normalised } : {}), ...(shape ? { shape } : {}), ...(compiled ? { compiled } : {}) })
  } catch {
    // The caller's bug must not stop the pool; its answer still comes.
  }
}

/**
 * Keeps one checker thread past the idle time until the returned release is called (a check-on runtime,
 * from creation to close): the one given back last (its checker is built, its code warm). The thread stays
 * unref'd: it never keeps the process alive.
 */
export function holdChecker(): () => void {
  holders++
  let held = true
  return () => {
    if (!held) return
    held = false
    holders--
  }
}

/** Ends a thread; its job (if any) gets `answer`; queued jobs go to the others (or a new one). */
function retire(slot: Slot, answer?: PoolAnswer): void {
  const current = slot.job
  slot.job = undefined
  if (current !== undefined) {
    clearTimeout(current.timer)
    const base: PoolAnswer = answer ?? { ok: false, reason: 'crashed', message: 'the type checker thread stopped' }
    current.job.resolve({ ...base, ...current.parts })
  }
  pool.retire(slot)
  if (queue.length > 0 && pool.counts().idle === 0) grow()
  pump()
}

/** The built worker entry: beside this file when built, else the build's copy under `<repo>/dist` (vitest). */
function workerPath(): string | undefined {
  const beside = fileURLToPath(new URL('./typecheck-worker.js', import.meta.url))
  if (existsSync(beside)) return beside
  const built = fileURLToPath(new URL('../dist/program/typecheck-worker.js', import.meta.url))
  return existsSync(built) ? built : undefined
}

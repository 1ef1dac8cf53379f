/**
 * The isolate child process: the only process that loads isolated-vm. Spawned by the supervisor with
 * `--no-node-snapshot`, an environment with nothing but glibc's arena count (supervisor.ts) and a pipe on
 * fd 3 that carries the protocol's frames (frame.ts); its one argument is a ChildConfig (JSON). It exits
 * when the pipe closes (the supervisor's end is closed with its process), so it never outlives the process
 * that spawned it.
 *
 * V8 cannot always unwind an out-of-memory isolate and may abort this whole process: that is why it is a
 * separate process. The supervisor sees the death and answers for every run that was in here.
 */
import { Socket } from 'node:net'
import type { SandboxOutcome, SandboxSessionRef } from '../types.js'
import { decodeToChild, encodeFrame } from './frame.js'
import { FrameReader, KINDS_TO_CHILD, MAX_FRAME_BYTES } from './frame-reader.js'
import { IsolateRun, type RunRequest, runConfig } from './isolate-run.js'
import { lockdownFlagsMissing } from './lockdown.js'
import { LogBatch } from './log-batch.js'
import { IsolatePool } from './pool.js'
import type { PooledIsolate } from './pooled-isolate.js'
import { Quiet } from './quiet.js'
import { SessionRealms } from './session-realms.js'
import { type CallRequest, DEFAULT_CHILD_CONFIG, type ChildConfig, type FromChild, M, type ToChild } from './protocol.js'

interface Active {
  run: IsolateRun | undefined
  logs: LogBatch
  /** Calls issued in this turn of the event loop, sent together at its end (with the logs so far). */
  calls: CallRequest[]
  flushScheduled: boolean
  aborted: boolean
}

// Fail closed: without the engine flags, programs could reach memory outside the limit.
const missingFlags = lockdownFlagsMissing()
if (missingFlags) {
  process.stderr.write(`codeact isolate child: started without the V8 flags ${missingFlags}; refusing to run programs\n`)
  process.exit(78)
}

const config: ChildConfig = { ...DEFAULT_CHILD_CONFIG, ...(JSON.parse(process.argv[2] ?? '{}') as Partial<ChildConfig>) }
const pool = new IsolatePool(config)
const sessions = new SessionRealms()
const active = new Map<number, Active>()
const quiet = new Quiet(
  config.quietMs,
  () => pool.trimQuiet(),
  () => active.size > 0,
)

const channel = new Socket({ fd: 3, readable: true, writable: true })

function send(message: FromChild): void {
  const frame = encodeFrame(message)
  if (frame.length - 4 <= MAX_FRAME_BYTES) channel.write(frame)
  else sendSplit(message)
}

/**
 * A message too long for one frame (console output past the frame bound, or a value of gigabytes): its
 * console lines go ahead one frame each, in order (a line too long even alone is dropped); then the rest,
 * and an outcome still too long becomes a runtime error.
 */
function sendSplit(message: FromChild): void {
  if (message[0] === M.ready) return
  const logs = message[0] === M.log ? message[2] : message[3]
  for (const entry of logs ?? []) {
    const one = encodeFrame([M.log, message[1], [entry]])
    if (one.length - 4 <= MAX_FRAME_BYTES) channel.write(one)
  }
  if (message[0] === M.call) channel.write(encodeFrame([M.call, message[1], message[2], undefined]))
  if (message[0] !== M.done) return
  const [, id, outcome, , ms] = message
  const rest = encodeFrame([M.done, id, outcome, undefined, ms])
  if (rest.length - 4 <= MAX_FRAME_BYTES) return void channel.write(rest)
  const error = {
    kind: 'runtime' as const,
    message: `the run's outcome (${rest.length} bytes) is larger than the sandbox process can send`,
  }
  channel.write(encodeFrame([M.done, id, { ok: false, error, droppedOutputBytes: outcome.droppedOutputBytes }, undefined, ms]))
}

/**
 * At the end of this turn of the event loop (the isolate's callbacks of one turn arrive together in its
 * poll phase; this runs in the check phase right after, without waiting for anything), send what the run
 * queued: its calls with its logs, or its logs alone. A run that ended meanwhile sent everything with its
 * outcome, or was stopped, and its calls are dropped: the host would discard their answers anyway.
 */
function scheduleFlush(id: number, state: Active): void {
  if (state.flushScheduled) return
  state.flushScheduled = true
  setImmediate(() => {
    state.flushScheduled = false
    if (active.get(id) !== state) return
    const calls = state.calls
    const logs = state.logs.take()
    if (calls.length > 0) {
      state.calls = []
      send([M.call, id, calls, logs])
    } else if (logs) send([M.log, id, logs])
  })
}

async function startRun(id: number, request: RunRequest, received: number, session?: SandboxSessionRef): Promise<void> {
  const state: Active = {
    run: undefined,
    logs: new LogBatch(request.limits.maxOutputBytes),
    calls: [],
    flushScheduled: false,
    aborted: false,
  }
  active.set(id, state)
  let entry: PooledIsolate
  try {
    if (session) {
      const opened = await sessions.open(session, request.limits.memoryMb)
      if (!opened.ok) {
        active.delete(id)
        send([M.done, id, opened.outcome, undefined, undefined])
        return
      }
      entry = opened.entry
      request.realm = opened.realm
    } else {
      pool.expect(runConfig(request))
      entry = await pool.acquire(request.limits.memoryMb)
    }
  } catch (e) {
    active.delete(id)
    sendUnavailable(id, e)
    return
  }
  const newRun = (current: PooledIsolate, inline: boolean): IsolateRun => {
    const made = new IsolateRun(current, request, {
      // A call with no other in flight goes at once, alone (a sequential call waits for nothing, and
      // costs this loop no extra turn). One issued beside others waits for the end of the turn, to go with
      // the rest of the turn's calls (a fan-out).
      call: (callId, name, argsJson) => {
        if (state.flushScheduled || made.callsInFlight > 1) {
          state.calls.push([callId, name, argsJson])
          scheduleFlush(id, state)
          return
        }
        send([M.call, id, [[callId, name, argsJson]], state.logs.take()])
      },
      log: (level, text) => {
        if (state.logs.push(level, text)) scheduleFlush(id, state)
      },
      // This run alone in the process: its program's start may hold this thread, briefly (glue.ts's startInline).
      // Never a session's: its realm outlives a start that would be cut off and made again.
      ...(inline ? { startInline: () => active.size === 1 } : {}),
    })
    state.run = made
    if (state.aborted) made.stop('aborted')
    return made
  }
  let run = newRun(entry, !session)
  let outcome: SandboxOutcome = await run.execute()
  if (run.startAgain) {
    // Its start ran past the slice this thread gives it (glue.ts's startInline); nothing of it left this process.
    // Again from the beginning, on the isolate's thread, in another isolate, within what is left of the deadline.
    void pool.release(entry, false)
    // The limits stay as asked (the outcome's message names them); what the first start used is spent.
    request.spentMs = performance.now() - received
    try {
      entry = await pool.acquire(request.limits.memoryMb)
    } catch (e) {
      active.delete(id)
      sendUnavailable(id, e)
      return
    }
    run = newRun(entry, false)
    outcome = await run.execute()
  }
  active.delete(id)
  // Calls issued in the run's last turn (a program that threw with calls in flight) still go out first,
  // as each did when it was its own message.
  if (state.calls.length > 0) send([M.call, id, state.calls, undefined])
  outcome.droppedOutputBytes += state.logs.droppedBytes
  send([M.done, id, outcome, state.logs.take(), performance.now() - received])
  if (session) sessions.after(session.id, entry)
  else void pool.release(entry, run.reusable, run.idleForCertain)
  quiet.touch()
}

function sendUnavailable(id: number, e: unknown): void {
  const message = `could not create an isolate: ${e instanceof Error ? e.message : String(e)}`
  const outcome: SandboxOutcome = {
    ok: false,
    error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE', message },
    droppedOutputBytes: 0,
  }
  send([M.done, id, outcome, undefined, undefined])
}

function isValidLimits(limits: unknown): limits is RunRequest['limits'] {
  if (typeof limits !== 'object' || limits === null) return false
  const { timeoutMs, deadlineMs, memoryMb, maxOutputBytes } = limits as Record<string, unknown>
  const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n)
  const deadlineOk = deadlineMs === undefined || (finite(deadlineMs) && deadlineMs > 0)
  return (
    finite(timeoutMs) && timeoutMs > 0 && deadlineOk && finite(memoryMb) && memoryMb >= 8 && finite(maxOutputBytes) && maxOutputBytes >= 0
  )
}

function onMessage(message: ToChild): void {
  switch (message[0]) {
    case M.run: {
      runsAsked++
      quiet.touch()
      const [, id, js, toolNames, limits, session, entropy] = message
      if (!isValidLimits(limits)) {
        const error = { kind: 'runtime' as const, message: 'the sandbox was given invalid limits' }
        send([M.done, id, { ok: false, error, droppedOutputBytes: 0 }, undefined, undefined])
        return
      }
      void startRun(id, { js, toolNames, limits, ...(entropy ? { entropy } : {}) }, performance.now(), session)
      return
    }
    case M.endSession:
      sessions.end(String(message[1]))
      return
    case M.result:
      active.get(message[1])?.run?.deliver(message[2])
      return
    case M.hold:
      active.get(message[1])?.run?.hold(message[2])
      return
    case M.abort: {
      const state = active.get(message[1])
      if (!state) return
      state.aborted = true
      state.run?.stop('aborted')
      return
    }
  }
}

/**
 * The supervisor is gone (or out of step with this process): end now, whatever runs. Not process.exit: its
 * cleanup joins every isolate's thread (isolated-vm's environment hook), and a program spinning on one ran
 * on — its run was never stopped, the host that would have stopped it being gone — so the exit never
 * finished: an orphan, a core spinning, minutes later. Nor disposing the isolates first: a large heap's
 * teardown is work for nobody. Nothing here needs flushing (stderr is a pipe, written synchronously), and
 * the kernel frees it all at once.
 */
function exit(): never {
  process.kill(process.pid, 'SIGKILL')
  // Not reached: SIGKILL cannot be caught.
  return process.exit(1)
}

// The supervisor is this package's code; a frame of its that does not decode means the two are out of step.
const reader = new FrameReader(
  KINDS_TO_CHILD,
  (body) => {
    const decoded = decodeToChild(body)
    if (decoded.ok) onMessage(decoded.message)
    else {
      process.stderr.write(`codeact isolate child: an unreadable message from the supervisor (${decoded.error})\n`)
      exit()
    }
  },
  (error) => {
    process.stderr.write(`codeact isolate child: ${error}\n`)
    exit()
  },
)
channel.on('data', (chunk: Buffer) => reader.push(chunk))
// The supervisor's end closed (it exited, or was killed): so does this process.
channel.on('close', exit)
channel.on('error', () => {})

/**
 * A child's first run took ~10× a warm one in the child (its own code and the isolate's not yet compiled:
 * the first realm, the first program): so a child not asked for a run right away first runs one constant
 * trivial program of its own, in a context of its own that is discarded, in a warm isolate that then goes
 * back to the pool as after any clean run (heap checked). Nothing of a caller is in it — the program is this
 * file's constant — so this is no more sharing than the fresh context every run gets in a reused isolate.
 * A spare (or prestarted) child is thus warm when a runtime takes it; a run that arrives first skips this.
 */
const WARM_UP: RunRequest = {
  js: '(async function() {\n  "use strict";\n  console.log("warm");\n  return 1;\n})',
  toolNames: [],
  limits: { timeoutMs: 5000, deadlineMs: 5000, memoryMb: config.warmMemoryMb, maxOutputBytes: 1024 },
}
let runsAsked = 0

async function warmUp(): Promise<void> {
  if (runsAsked > 0) return
  try {
    const entry = await pool.acquire(config.warmMemoryMb)
    await new IsolateRun(entry, { ...WARM_UP }, { call: () => {}, log: () => {} }).execute()
    await pool.release(entry, true)
    quiet.touch()
  } catch {
    // Only a warm-up: the first run pays for what it skipped.
  }
}

send([M.ready, process.pid])
pool.fill(config.warmMemoryMb)
setImmediate(() => void warmUp())

/**
 * One program in one ready container: send it, serve its tool calls and console, and turn whatever ends
 * it (its outcome, the deadline, an abort, the container dying) into a `SandboxOutcome`. Never rejects.
 */
import { randomBytes } from 'node:crypto'
import type { LogEntry } from '../../vocabulary/types.js'
import type { SandboxDenial, SandboxHost, SandboxOutcome, SandboxRunRequest } from '../types.js'
import { ProgramClock } from '../program-clock.js'
import { preludeOutcome, type FromRunner } from './protocol.js'
import { MAX_DENIALS } from './wire-messages.js'
import type { ReadyContainer } from './spawn.js'
import { isGvisor } from './spec.js'

/** How long a run that ended (not stopped) with tool calls still in flight waits for their answers. */
const PENDING_GRACE_MS = 2_000
/** Room over the program's console cap for the prelude's own "output cut" marker. */
const LOG_SLACK_BYTES = 4 * 1024

export interface RunHooks {
  /** Workspace op answers go to the ops client of this container. */
  onOpResult(msg: Extract<FromRunner, { type: 'opResult' }>): void
}

export function runInContainer(
  c: ReadyContainer,
  request: SandboxRunRequest,
  host: SandboxHost,
  signal: AbortSignal,
  hooks: RunHooks,
): Promise<SandboxOutcome> {
  return new Promise((resolve) => {
    const { limits } = request
    const denials: SandboxDenial[] = []
    const pending = new Set<Promise<void>>()
    let logBytes = 0
    let hostDropped = 0
    let settled = false
    // A session's container serves many runs: only this run's stray output counts for it.
    const strayBefore = c.channel.stray.bytes

    const finish = (outcome: SandboxOutcome): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clock.dispose()
      signal.removeEventListener('abort', onAbort)
      offClose()
      c.channel.handler = (msg) => {
        if (msg.type === 'opResult') hooks.onOpResult(msg)
      }
      const withExtras: SandboxOutcome = {
        ...outcome,
        // What the program wrote to fd 1 outside the protocol is output that was dropped.
        droppedOutputBytes: outcome.droppedOutputBytes + hostDropped + c.channel.stray.bytes - strayBefore,
        ...(denials.length > 0 ? { denials } : {}),
      }
      // A stopped run (timeout, abort) answers at once, its calls still pending: the runtime names them
      // ("still waiting on: …") and cancels them, which keeps the log's invariant.
      if (pending.size === 0 || stopping) return resolve(withExtras)
      // Otherwise every call the program made gets its result (briefly waited for) before the run is reported.
      const grace = new Promise((r) => setTimeout(r, PENDING_GRACE_MS))
      void Promise.race([Promise.all([...pending]), grace]).then(() => resolve(withExtras))
    }
    const fail = (
      kind: 'runtime' | 'timeout' | 'memory' | 'aborted' | 'sandbox_unavailable',
      message: string,
      extra?: { stack?: string; code?: string },
    ): void => finish({ ok: false, error: { kind, message, ...extra }, droppedOutputBytes: 0 })

    const kill = (): Promise<void> =>
      c.container.kill().then(
        () => undefined,
        () => undefined,
      )

    // Timeout and abort kill the container first; its stream then ends, which must not read as a crash.
    let stopping = false
    const stop = (kind: 'timeout' | 'aborted', message: string, budget?: 'program' | 'deadline'): void => {
      if (settled || stopping) return
      stopping = true
      void kill().then(() => finish({ ok: false, error: { kind, message, ...(budget ? { budget } : {}) }, droppedOutputBytes: 0 }))
    }
    // Two budgets: the program's own time (paused while a call is pending) and the run's whole deadline.
    const clock = new ProgramClock(limits.timeoutMs, () =>
      stop('timeout', `the program exceeded the time limit of ${limits.timeoutMs} ms`, 'program'),
    )
    const deadlineMs = Math.min(limits.deadlineMs ?? 600_000, 2 ** 31 - 1)
    const timer = setTimeout(() => stop('timeout', `the run exceeded its deadline of ${deadlineMs} ms`, 'deadline'), deadlineMs)
    const onAbort = (): void => stop('aborted', 'the run was aborted')
    signal.addEventListener('abort', onAbort, { once: true })

    // The container ended before the program did: out of memory, process.exit, a crash.
    const offClose = c.channel.onClose(() => {
      if (settled || stopping) return
      void diagnose(c, limits.memoryMb).then((d) =>
        fail(d.kind, d.message, d.kind === 'sandbox_unavailable' ? { code: 'SANDBOX_UNAVAILABLE' } : undefined),
      )
    })

    const forwardLogs = (entries: LogEntry[]): void => {
      const kept: LogEntry[] = []
      for (const entry of entries) {
        const size = Buffer.byteLength(entry.text) + 1
        if (logBytes + size > limits.maxOutputBytes + LOG_SLACK_BYTES) hostDropped += size
        else {
          logBytes += size
          kept.push(entry)
        }
      }
      if (kept.length > 0) host.log(kept)
    }

    c.channel.handler = (msg) => {
      // Once stopping (timeout, abort), the stop decides the outcome: a `done` racing the kill is ignored.
      if (settled || stopping) return msg.type === 'opResult' ? hooks.onOpResult(msg) : undefined
      switch (msg.type) {
        case 'call': {
          clock.callStarted()
          const p = host
            .callTool(msg.name, msg.argsJson)
            .finally(() => clock.callSettled())
            .catch(() => JSON.stringify({ ok: false, error: { code: 'EIO', message: 'the tool bridge failed' } }))
            .then((resultJson) => {
              // Not once the run is over: a session's container runs its next program, whose call ids start again.
              if (!settled) c.channel.send({ type: 'result', id: msg.id, resultJson })
            })
          pending.add(p)
          void p.finally(() => pending.delete(p))
          return
        }
        case 'log':
          return forwardLogs(msg.entries)
        case 'denial':
          if (denials.length < MAX_DENIALS) denials.push({ code: msg.code, message: msg.message })
          return
        case 'opResult':
          return hooks.onOpResult(msg)
        case 'fatal':
          return fail('sandbox_unavailable', `the runner failed: ${msg.message}`)
        case 'done':
          return finish(withEffects(mapOutcome(msg.outcomeJson), msg.effects))
        case 'unhandled': {
          // Worded as the isolate words it; the stack lets the runtime point at the program's line.
          const { name, message, stack } = msg.error
          const reason = name === 'Thrown' ? message : `${name}: ${message}`
          const error = {
            kind: 'runtime' as const,
            message: `unhandled promise rejection: ${reason}`,
            ...(stack !== undefined ? { stack } : {}),
          }
          return finish(withEffects({ ok: false, error, droppedOutputBytes: 0 }, msg.effects))
        }
        case 'ready':
          return
      }
    }

    if (signal.aborted) return onAbort()
    const nonce = randomBytes(16).toString('hex')
    c.channel.requireNonce(nonce)
    const sent = c.channel.send({
      type: 'run',
      runId: request.runId,
      nonce,
      js: request.js,
      toolNames: [...request.toolNames],
      maxOutputBytes: limits.maxOutputBytes,
      deadlineMs,
      ...(request.session ? { session: true as const } : {}),
      ...(request.entropy ? { entropy: request.entropy } : {}),
    })
    if (!sent) fail('sandbox_unavailable', 'the container closed before the program could be sent')
  })
}

function withEffects(outcome: SandboxOutcome, effects: string[] | undefined): SandboxOutcome {
  return effects && effects.length > 0 ? { ...outcome, ownEffects: effects } : outcome
}

function mapOutcome(outcomeJson: string): SandboxOutcome {
  let raw: unknown
  try {
    raw = JSON.parse(outcomeJson)
  } catch {
    raw = undefined
  }
  const parsed = preludeOutcome.safeParse(raw)
  if (!parsed.success) {
    return { ok: false, error: { kind: 'runtime', message: 'the runner reported an unreadable outcome' }, droppedOutputBytes: 0 }
  }
  const o = parsed.data
  if (o.ok) {
    return {
      ok: true,
      valueJson: o.valueJson,
      ...(o.valueNote !== undefined ? { valueNote: o.valueNote } : {}),
      droppedOutputBytes: o.droppedOutputBytes,
      ...(o.clock !== undefined ? { clock: o.clock } : {}),
    }
  }
  const { name, message, stack, compile } = o.error
  const text = name === 'Error' || name === 'Thrown' || message.startsWith(name) ? message : `${name}: ${message}`
  return {
    ok: false,
    error: { kind: compile ? 'compile' : 'runtime', message: text, ...(stack !== undefined ? { stack } : {}) },
    droppedOutputBytes: o.droppedOutputBytes,
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
  }
}

/**
 * Why a container ended early: the kernel's OOM killer, V8's heap limit, the process exiting — or the
 * engine itself going away, which is infrastructure (`sandbox_unavailable`), never the program's fault.
 */
async function diagnose(
  c: ReadyContainer,
  memoryMb: number,
): Promise<{ kind: 'runtime' | 'memory' | 'sandbox_unavailable'; message: string }> {
  const memory = `the program exceeded the memory limit of ${c.memoryMb ?? memoryMb} MB`
  const stderr = c.channel.stderrTail()
  if (/heap out of memory|Reached heap limit/i.test(stderr)) return { kind: 'memory', message: `${memory} (JavaScript heap)` }
  if (c.channel.protocolError) return { kind: 'runtime', message: c.channel.protocolError }
  try {
    // The stream can end a moment before the engine records the exit.
    const info = await c.container.inspect()
    let state = info.State
    for (let i = 0; i < 20 && state.Running; i++) {
      await new Promise((r) => setTimeout(r, 25))
      state = (await c.container.inspect()).State
    }
    // A SIGKILL we did not send is most often the OOM killer, whose verdict the engine can record a moment
    // after the exit (seen under gVisor): ask again before calling it a plain kill.
    for (let i = 0; i < 10 && state.ExitCode === 137 && !state.OOMKilled; i++) {
      await new Promise((r) => setTimeout(r, 100))
      state = (await c.container.inspect()).State
    }
    if (state.OOMKilled) return { kind: 'memory', message: `${memory} (the container was OOM-killed)` }
    // The engine does not always record OOMKilled (under gVisor the host's OOM killer ends the sandbox's
    // kernel; under runc on cgroup v2 it may not say): a SIGKILL nobody here sent is the memory limit (a
    // program that SIGKILLs itself is the one other way, and reads the same).
    if (state.ExitCode === 137) {
      const killed = isGvisor(info.HostConfig?.Runtime) ? 'the gVisor sandbox was' : "the program's process was"
      return { kind: 'memory', message: `${memory} (${killed} killed by SIGKILL, as the memory limit does)` }
    }
    const tail = stderr.trim().split('\n').slice(-5).join('\n').slice(-1000)
    const why = `exited with code ${state.ExitCode}`
    return { kind: 'runtime', message: `the program's process ${why} before the program finished${tail ? `:\n${tail}` : ''}` }
  } catch (e) {
    // A program cannot remove its own container: either the engine is unreachable or someone outside
    // removed the container. Both are infrastructure.
    const gone = (e as { statusCode?: number }).statusCode === 404
    return {
      kind: 'sandbox_unavailable',
      message: gone
        ? 'the container was removed from outside before the program finished'
        : `lost the connection to the Docker engine before the program finished (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`,
    }
  }
}

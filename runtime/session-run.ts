/**
 * One run of a session, as run-code.ts sees it: the mark for `run/start`, the prepare step with the
 * session's declarations, and the sandbox call with the session's realm, restoring the session by replay
 * first when its realm is gone (and once more if the sandbox answers `session_lost`).
 */
import { randomUUID } from 'node:crypto'
import type { Sandbox, SandboxOutcome, SandboxRunRequest } from '../sandbox/types.js'
import type { EventLog } from './event-log.js'
import type { HistoryRun } from './session-history.js'
import { restoreSession } from './session-restore.js'
import type { PreparedProgram, ProgramPrep } from './typecheck.js'
import { compile, compiledProgram } from './compile.js'
import type { RunSessionMark } from '../vocabulary/types.js'
import type { StoreVersion } from './store/types.js'

/** What the runtime keeps of one session between its runs. */
export interface SessionState {
  readonly id: string
  readonly caller: string | undefined
  /** The sandbox's name for its realm: unique per caller and id. */
  readonly realmId: string
  /** TypeScript declarations of its bindings so far (what the next run is checked against). */
  declarations: string
  /** The runs in its realm since it began afresh, in order. */
  history: HistoryRun[]
  /** A realm with the history's state is live in the sandbox (as far as the runtime knows). */
  live: boolean
  /** The next run begins the history (first run, after reset or close): a new realm, nothing to replay. */
  fresh: boolean
  /** Runs read from an earlier runtime's log: compiled (and their declarations rebuilt) before the next run. */
  uncompiled: boolean
  lastUsed: number
  running: boolean
  /** Runs of one session run one at a time, in order. */
  tail: Promise<unknown>
  idleTimer: NodeJS.Timeout | undefined
  /** A shared store's version of the history this state holds (undefined: load it before the next turn). */
  version?: StoreVersion
}

/** The session part of a program's prepared text (helper `sesstypes`: the checker rewrites and answers declarations). */
type SessionPrepare = (
  source: string,
  allowNodeImports: boolean,
  session: { declarations: string },
) => Promise<PreparedProgram & { session?: { declarations: string } }>

export class SessionRun {
  readonly mark: RunSessionMark
  /** Lines for the observation (restored, could not be restored …). */
  readonly notes: string[] = []
  /** The compiled program and the declarations after it, once prepared: kept in the history. */
  js: string | undefined
  declarationsAfter: string | undefined
  readonly #state: SessionState
  readonly #log: EventLog
  readonly #memoryMb: number
  readonly #sandbox: Sandbox

  constructor(state: SessionState, env: { log: EventLog; sandbox: Sandbox; memoryMb: number }) {
    this.#state = state
    this.#log = env.log
    this.#memoryMb = env.memoryMb
    this.#sandbox = env.sandbox
    this.mark = {
      id: state.id,
      ...(state.caller !== undefined ? { caller: state.caller } : {}),
      seed: randomUUID(),
      ...(state.fresh ? { fresh: true } : {}),
    }
  }

  /** Prepares the program against the session's declarations (rebuilding them first for a session read from a log). */
  async prepare(prep: ProgramPrep, code: string, allowNodeImports: boolean): Promise<PreparedProgram> {
    const withSession = prep.prepare as unknown as SessionPrepare
    if (this.#state.uncompiled) await this.#rebuild(prep, withSession, allowNodeImports)
    const prepared = await withSession(code, allowNodeImports, { declarations: this.#state.declarations })
    this.declarationsAfter = prepared.session?.declarations
    return prepared
  }

  /** A session realm's heap is the session limit, not the run's: the hint names what governs it. */
  memoryHint(message: string): string {
    const hint = `the session's realm has ${this.#memoryMb} MB whatever the run's limits say; raise it with --realm-memory (sessions.memoryMb)`
    return message.replace(/; raise it with --memory \(limits\.memoryMb\)$/, '') + `; ${hint}`
  }

  /** Runs in the session's realm: restored first if it is gone; a `session_lost` answer restores and retries once. */
  async run(
    request: SandboxRunRequest,
    runOnce: (r: SandboxRunRequest) => Promise<SandboxOutcome>,
    signal: AbortSignal,
  ): Promise<SandboxOutcome> {
    const base: SandboxRunRequest = {
      ...request,
      limits: { ...request.limits, memoryMb: this.#memoryMb },
      entropy: { seed: this.mark.seed },
    }
    this.js = request.js
    let realm = await this.#realm(base, signal)
    let outcome = await runOnce({ ...base, session: { id: this.#state.realmId, realm } })
    if (!outcome.ok && outcome.error.kind === 'session_lost' && realm === 'existing') {
      this.#state.live = false
      realm = await this.#realm(base, signal)
      outcome = await runOnce({ ...base, session: { id: this.#state.realmId, realm } })
    }
    if (realm === 'new') this.#state.history = []
    this.#state.live = outcome.ok || outcome.error.kind !== 'sandbox_unavailable' || realm === 'existing'
    return outcome
  }

  async #realm(base: SandboxRunRequest, signal: AbortSignal): Promise<'new' | 'existing'> {
    const state = this.#state
    if (state.fresh || state.history.length === 0) return 'new'
    if (state.live) return 'existing'
    const restored = await restoreSession({
      sessionId: state.realmId,
      runId: base.runId,
      runs: state.history,
      sandbox: this.#sandbox,
      toolNames: base.toolNames,
      limits: base.limits,
      ...(base.callerId !== undefined ? { callerId: base.callerId } : {}),
      signal,
    })
    this.notes.push(restored.note)
    if (!restored.ok) {
      this.#log.append('session/end', {
        id: state.id,
        ...(state.caller !== undefined ? { caller: state.caller } : {}),
        reason: 'unrestorable',
      })
      return 'new'
    }
    state.live = true
    return state.history.some((r) => r.lost === undefined) ? 'existing' : 'new'
  }

  /** A session read from a log: its runs are prepared again, in order, to compile them and rebuild its declarations. */
  async #rebuild(prep: ProgramPrep, withSession: SessionPrepare, allowNodeImports: boolean): Promise<void> {
    const state = this.#state
    state.uncompiled = false
    let declarations = ''
    for (const run of state.history) {
      const prepared = await withSession(run.code, allowNodeImports, { declarations })
      const text = prepared.normalised?.problem === undefined ? prepared.normalised?.text : undefined
      if (text === undefined) continue
      const compiled = prepared.compiled
        ? compiledProgram(prepared.compiled, text)
        : await compile(text, { shapes: prep.shapes, ...(prepared.shape ? { sourceShape: prepared.shape } : {}) })
      if (!compiled.ok) continue
      run.js = compiled.program.js
      declarations = prepared.session?.declarations ?? declarations
    }
    state.declarations = declarations
  }
}

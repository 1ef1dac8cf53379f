/**
 * The runtime's sessions: their state between runs, their limits, and the handles `rt.session()` answers.
 *
 * - Runs of one session run one at a time, in order (a second run waits for the first).
 * - A realm idle for `idleMs` is freed (`sandbox.endSession`); past `max` live realms, the least recently
 *   used idle one is freed. Either way the history stays, and the session's next run restores by replay.
 * - `reset()` forgets the bindings (the next run starts in a fresh realm); `close()` ends the session.
 * - A session id unknown to this runtime but found in the `logFile` an earlier runtime wrote is restored
 *   from that log (its events are carried into this runtime's log, so a later restart finds them too).
 * - With a shared store (PostgreSQL), each turn takes the session's lease there, reloads the history when
 *   another replica moved it on (the realm is then restored by replay), and records its run before the
 *   result is returned; `reset()` clears the stored history, `close()` deletes it (`close({ here: true })`
 *   only forgets the session on this replica).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import type { Sandbox } from '../sandbox/types.js'
import type { EventLog } from './event-log.js'
import { type HistoryRun, historyRun, sessionKey } from './session-history.js'
import { SessionRun, type SessionState } from './session-run.js'
import type { Session, SessionOptions } from './session.js'
import type { RunCodeOptions } from './run-code.js'
import type { EventData, Limits, RunEvent, RunResult, SessionLimits } from '../vocabulary/types.js'
import { MAX_TIMEOUT_MS } from './limits.js'
import type { SessionStore, StoreResult, StoreVersion } from './store/types.js'
import { storeLostTurn, storeRefused } from './store/turn-failure.js'
import { openStore, type StoreSpec } from './store/open-store.js'

const DEFAULT_SESSION_LIMITS: Omit<SessionLimits, 'memoryMb'> = Object.freeze({ max: 64, idleMs: 10 * 60_000 })

/** The sessions' limits over their defaults (`memoryMb`: the runtime's); nonsense throws a TypeError naming it. */
export function resolveSessionLimits(given: Partial<SessionLimits> | undefined, limits: Limits): SessionLimits {
  const out: SessionLimits = { ...DEFAULT_SESSION_LIMITS, memoryMb: limits.memoryMb }
  for (const [key, value] of Object.entries(given ?? {})) {
    if (value === undefined) continue
    if (!(key in out)) throw new TypeError(`codeact: unknown session limit "${key}"; known: max, idleMs, memoryMb`)
    const min = key === 'memoryMb' ? 8 : 1
    if (typeof value !== 'number' || !(value >= min) || (value !== Infinity && !Number.isInteger(value)))
      throw new TypeError(`codeact: sessions.${key} must be a whole number of at least ${min}, got ${String(value)}`)
    out[key as keyof SessionLimits] = Math.min(value, key === 'idleMs' ? MAX_TIMEOUT_MS : key === 'memoryMb' ? 64 * 1024 : 1e6)
  }
  return out
}

type RunIn = (code: string, options: RunCodeOptions, session: SessionRun) => Promise<RunResult>

export class Sessions {
  readonly #states = new Map<string, SessionState>()
  readonly #limits: SessionLimits
  readonly #log: EventLog
  readonly #sandbox: Sandbox
  readonly #runIn: RunIn
  /** Where sessions live; turns go through it only when it is shared by replicas. */
  readonly store: SessionStore
  readonly #ownsStore: boolean
  readonly #store: SessionStore | undefined
  /** Histories an earlier runtime's log holds, by session id (taken when the id is first used). */
  readonly #prior: Map<string, RunEvent[]>
  /** The session of the native batch being executed (`executeToolCalls(calls, { session })`). */
  readonly batchScope = new AsyncLocalStorage<Session | string>()

  constructor(options: {
    limits: SessionLimits
    log: EventLog
    sandbox: Sandbox
    runIn: RunIn
    prior?: Map<string, RunEvent[]>
    store?: StoreSpec | undefined
  }) {
    this.#limits = options.limits
    const opened = openStore(options.store)
    this.store = opened.store
    this.#ownsStore = opened.owned
    this.#store = opened.store.shared ? opened.store : undefined
    this.#log = options.log
    this.#sandbox = options.sandbox
    this.#runIn = options.runIn
    this.#prior = options.prior ?? new Map()
    // Carried into this runtime's log, so a restart after this one still finds them.
    for (const events of this.#prior.values()) for (const e of events) this.#log.append(e.type, e.data as never)
  }

  /** Live realms now (for tests and the bench). */
  get live(): number {
    let n = 0
    for (const s of this.#states.values()) if (s.live) n++
    return n
  }

  handle(options: SessionOptions = {}): Session {
    if (options.id !== undefined && (typeof options.id !== 'string' || options.id === '' || options.id.length > 200))
      throw new TypeError('codeact: a session id is a non-empty string of at most 200 characters')
    if (options.caller !== undefined && typeof options.caller !== 'string') throw new TypeError('codeact: a session caller is a string')
    const id = options.id ?? `session_${randomUUID()}`
    const { caller } = options
    const key = sessionKey(caller, id)
    this.#state(caller, id)
    const handle: Session = {
      id,
      caller,
      runCode: (code, o) => this.run(handle, code, o ?? {}),
      declarations: () => this.#states.get(key)?.declarations ?? '',
      reset: () => this.#end(key, 'reset'),
      close: (o) => this.#end(key, o?.here === true ? 'close-here' : 'close'),
    }
    return handle
  }

  /** Resolves `options.session` (a handle or an id) and runs the program in it, after the session's earlier runs. */
  async run(session: Session | string, code: string, options: RunCodeOptions): Promise<RunResult> {
    const id = typeof session === 'string' ? session : session?.id
    if (typeof id !== 'string' || id === '') throw new TypeError('codeact: options.session must be a session from rt.session() or its id')
    // Sessions are per caller and id: another caller naming the same id has its own (ids like `conv-42` are guessable).
    const caller = typeof session === 'string' ? options.caller : session.caller
    if (typeof session !== 'string' && options.caller !== undefined && options.caller !== session.caller)
      throw new TypeError(
        `codeact: session "${id}" was made for caller ${JSON.stringify(session.caller ?? null)}; options.caller says otherwise`,
      )
    const state = this.#state(caller, id)
    const { session: _drop, caller: _caller, ...rest } = options
    if (caller !== undefined) Object.assign(rest, { caller })
    const next = state.tail.then(() => this.#runNow(state, code, rest))
    state.tail = next.catch(() => {})
    return next
  }

  async close(): Promise<void> {
    for (const s of this.#states.values()) clearTimeout(s.idleTimer)
    if (this.#ownsStore) await this.store.close()
  }

  /** A turn with a shared store: under its lease, on the stored history, recorded before it answers. */
  async #runNow(state: SessionState, code: string, options: RunCodeOptions): Promise<RunResult> {
    const store = this.#store
    if (!store) return this.#runHere(state, code, options)
    const turn = await store.begin(state.realmId, code)
    if (!turn.ok) return storeRefused(turn.error)
    const synced = await this.#sync(store, state, turn.value.version)
    if (!synced.ok) {
      await turn.value.abandon()
      return storeRefused(synced.error)
    }
    let ran: { record: HistoryRun; restart: boolean } | undefined
    const result = await this.#runHere(state, code, options, (record, restart) => {
      ran = { record, restart }
    })
    const committed = await turn.value.commit(ran?.record, ran?.restart ?? false)
    if (committed.ok) {
      state.version = committed.value
      return result
    }
    // Not recorded: this replica's copy is no longer the store's; the next turn reloads and replays.
    state.version = undefined
    await this.#free(state)
    return storeLostTurn(result, committed.error)
  }

  /** Brings this replica's copy of the session to the store's version (a realm of an older one is freed). */
  async #sync(store: SessionStore, state: SessionState, version: StoreVersion): Promise<StoreResult<void>> {
    const held = state.version
    if (held && held.generation === version.generation && held.runs === version.runs) return { ok: true, value: undefined }
    const loaded = await store.load(state.realmId)
    if (!loaded.ok) return loaded
    if (state.live) await this.#free(state)
    state.history = loaded.value.runs
    state.fresh = loaded.value.runs.length === 0
    state.uncompiled = loaded.value.runs.length > 0
    state.declarations = ''
    state.version = loaded.value.version
    return { ok: true, value: undefined }
  }

  async #runHere(
    state: SessionState,
    code: string,
    options: RunCodeOptions,
    recorded?: (record: HistoryRun, restart: boolean) => void,
  ): Promise<RunResult> {
    clearTimeout(state.idleTimer)
    state.running = true
    state.lastUsed = Date.now()
    const run = new SessionRun(state, { log: this.#log, sandbox: this.#sandbox, memoryMb: this.#limits.memoryMb })
    try {
      const result = await this.#runIn(code, options, run)
      const runId = (result.events[0]?.data as EventData['run/start'] | undefined)?.runId
      const record = runId === undefined ? undefined : historyRun(result.events, runId)
      if (record) {
        record.js = run.js
        state.history.push(record)
        recorded?.(record, state.history.length === 1)
        state.fresh = false
        if (run.declarationsAfter !== undefined) state.declarations = run.declarationsAfter
        if (record.lost) {
          state.live = false
          await this.#free(state)
        }
      }
      return result
    } finally {
      state.running = false
      state.lastUsed = Date.now()
      this.#armIdle(state)
      await this.#enforceCap(state)
    }
  }

  #state(caller: string | undefined, id: string): SessionState {
    const key = sessionKey(caller, id)
    const held = this.#states.get(key)
    if (held) return held
    const prior = this.#prior.get(key)
    this.#prior.delete(key)
    const history = prior ? collectRuns(prior) : []
    const state: SessionState = {
      id,
      caller,
      realmId: key,
      declarations: '',
      history,
      live: false,
      fresh: history.length === 0,
      uncompiled: history.length > 0,
      lastUsed: Date.now(),
      running: false,
      tail: Promise.resolve(),
      idleTimer: undefined,
    }
    this.#states.set(key, state)
    return state
  }

  async #end(key: string, how: 'reset' | 'close' | 'close-here'): Promise<void> {
    const reason = how === 'reset' ? 'reset' : 'close'
    const state = this.#states.get(key)
    if (!state) return
    const { id, caller } = state
    // After the runs already queued, so a reset never lands in the middle of one.
    const done = state.tail.then(async () => {
      if (reason === 'reset' && this.#store) {
        const cleared = await this.#store.clear(state.realmId)
        if (!cleared.ok) throw new Error(`codeact: the session was not reset: ${cleared.error.message}`)
      }
      if (how === 'close' && this.#store?.drop) {
        const dropped = await this.#store.drop(state.realmId)
        if (!dropped.ok) throw new Error(`codeact: the session was not closed: ${dropped.error.message}`)
      }
      state.version = undefined
      clearTimeout(state.idleTimer)
      this.#log.append('session/end', { id, ...(caller !== undefined ? { caller } : {}), reason })
      await this.#free(state)
      state.history = []
      state.declarations = ''
      state.fresh = true
      state.uncompiled = false
      if (reason === 'close') this.#states.delete(key)
    })
    state.tail = done.catch(() => {})
    await done
  }

  /** Frees the realm (the history stays). */
  async #free(state: SessionState): Promise<void> {
    state.live = false
    await this.#sandbox.endSession?.(state.realmId)
  }

  #armIdle(state: SessionState): void {
    clearTimeout(state.idleTimer)
    if (!state.live) return
    state.idleTimer = setTimeout(() => {
      if (!state.running) void this.#free(state)
    }, this.#limits.idleMs)
    state.idleTimer.unref()
  }

  /** Past `max` live realms, the least recently used idle ones (never `keep`) are freed. */
  async #enforceCap(keep: SessionState): Promise<void> {
    let live = [...this.#states.values()].filter((s) => s.live)
    while (live.length > this.#limits.max) {
      const idle = live.filter((s) => !s.running && s !== keep).sort((a, b) => a.lastUsed - b.lastUsed)
      const victim = idle[0]
      if (!victim) return
      clearTimeout(victim.idleTimer)
      await this.#free(victim)
      live = live.filter((s) => s !== victim)
    }
  }
}

/** The history records of the runs among a session's events from a log. */
function collectRuns(events: readonly RunEvent[]) {
  const ids = events.flatMap((e) => (e.type === 'run/start' ? [(e.data as EventData['run/start']).runId] : []))
  return ids.flatMap((runId) => {
    const run = historyRun(events, runId)
    return run ? [run] : []
  })
}

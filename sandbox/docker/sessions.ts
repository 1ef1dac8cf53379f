/**
 * Session containers: one container per session, kept between the session's runs and never shared — not
 * with another session, not with another caller, never given back to the warm pool. The runner keeps the
 * session's realm alive in it (sandbox/docker/runner/), so the next run sees the bindings of the earlier ones.
 *
 * A session's runs go one at a time (a run waits for the one before it). A realm is lost when its container
 * is: killed by a timeout or an abort, OOM-killed, exited, removed from outside. Then a run that asks for the
 * `existing` realm is answered `session_lost` at once (the runtime restores the session by replay into a
 * `new` one). `new` always takes a fresh container (a warm one from the pool when it holds one, else one
 * started for the session), so nothing an earlier realm left running survives.
 */
import { unavailable, type SandboxOutcome, type SandboxSessionRef } from '../types.js'
import type { ReadyContainer, Spawned } from './spawn.js'

interface Entry {
  id: string
  callerId: string | undefined
  ready: ReadyContainer | undefined
  /** The run in flight (aborted by `end`), if any. */
  abort: AbortController | undefined
  /** Resolves when the session's current run has released it. */
  turn: Promise<void>
  /** Runs queued or in flight; an entry with none and no container is forgotten. */
  users: number
}

export type Acquired =
  | { ok: true; ready: ReadyContainer; abort: AbortController; release(outcome: SandboxOutcome): void }
  | { ok: false; outcome: SandboxOutcome }

export interface SessionContainersOptions {
  /** A fresh container for this session (named for it; labelled with its id when started for it). */
  spawn(memoryMb: number, sessionId: string): Promise<Spawned>
  /** Kill and remove a container; resolves once it is gone (or given up on). */
  destroy(container: ReadyContainer): Promise<unknown>
}

const lost = (message: string): SandboxOutcome => ({ ok: false, error: { kind: 'session_lost', message }, droppedOutputBytes: 0 })

/** Outcomes after which the container is not trusted to hold the realm (it was killed, or may be). */
function realmSurvives(outcome: SandboxOutcome, ready: ReadyContainer): boolean {
  if (!ready.channel.isOpen) return false
  if (outcome.ok) return true
  return outcome.error.kind === 'runtime' && ready.channel.protocolError === undefined
}

export class SessionContainers {
  private readonly entries = new Map<string, Entry>()
  private closed = false

  constructor(private readonly o: SessionContainersOptions) {}

  /**
   * The session's container for one run, once the session's previous run released it. `existing` with no
   * live realm: `session_lost`. `new`: a fresh container (an old one is removed). `signal` aborts the wait.
   */
  async acquire(ref: SandboxSessionRef, callerId: string | undefined, memoryMb: number, signal: AbortSignal): Promise<Acquired> {
    if (this.closed) return { ok: false, outcome: unavailable('the docker sandbox is closed') }
    let entry = this.entries.get(ref.id)
    if (entry && entry.callerId !== callerId) {
      return { ok: false, outcome: unavailable(`session "${ref.id.slice(0, 100)}" belongs to another caller`) }
    }
    if (!entry) {
      entry = { id: ref.id, callerId, ready: undefined, abort: undefined, turn: Promise.resolve(), users: 0 }
      this.entries.set(ref.id, entry)
    }
    // Queue behind the session's run in flight.
    const before = entry.turn
    let releaseTurn!: () => void
    entry.turn = new Promise((r) => (releaseTurn = r))
    entry.users++
    const own = entry
    const release = (): void => {
      own.users--
      if (own.users === 0 && own.ready === undefined && this.entries.get(own.id) === own) this.entries.delete(own.id)
      releaseTurn()
    }
    await before
    const current = this.entries.get(ref.id)
    if (this.closed || current !== entry) {
      release()
      return { ok: false, outcome: this.closed ? unavailable('the docker sandbox is closed') : lost('the session was ended') }
    }
    if (signal.aborted) {
      release()
      return { ok: false, outcome: abortedOutcome() }
    }
    if (ref.realm === 'existing') {
      if (!entry.ready?.channel.isOpen) {
        const why = entry.ready ? 'its container ended' : 'it has no container here'
        this.drop(entry)
        release()
        return { ok: false, outcome: lost(`the realm of session "${ref.id.slice(0, 100)}" is gone (${why})`) }
      }
    } else {
      this.drop(entry)
      const spawned = await this.spawnFor(entry, memoryMb, signal)
      if (!spawned.ok) {
        release()
        return { ok: false, outcome: spawned.outcome }
      }
      entry.ready = spawned.ready
    }
    const ready = entry.ready
    if (!ready) {
      release()
      return { ok: false, outcome: lost('the session was ended') }
    }
    const abort = new AbortController()
    entry.abort = abort
    return {
      ok: true,
      ready,
      abort,
      release: (outcome) => {
        entry.abort = undefined
        if (!realmSurvives(outcome, ready) && entry.ready === ready) void this.drop(entry)
        release()
      },
    }
  }

  private async spawnFor(
    entry: Entry,
    memoryMb: number,
    signal: AbortSignal,
  ): Promise<{ ok: true; ready: ReadyContainer } | { ok: false; outcome: SandboxOutcome }> {
    // One that arrives after the caller left, or after the session ended or the sandbox closed, is removed.
    const unwanted = () => this.closed || this.entries.get(entry.id) !== entry
    const spawned = await arrival(this.o.spawn(memoryMb, entry.id), signal, this.o.destroy, unwanted)
    if (spawned === undefined) return { ok: false, outcome: abortedOutcome() }
    if (!spawned.ok) return { ok: false, outcome: unavailable(spawned.message) }
    if (this.closed) return { ok: false, outcome: unavailable('the docker sandbox is closed') }
    if (unwanted()) return { ok: false, outcome: lost('the session was ended') }
    return { ok: true, ready: spawned.ready }
  }

  private drop(entry: Entry): Promise<unknown> {
    const removal = entry.ready ? this.o.destroy(entry.ready) : Promise.resolve()
    entry.ready = undefined
    return removal
  }

  /** End a session: its run in flight (if any) is aborted, its container removed. Unknown ids are fine. */
  async end(id: string): Promise<void> {
    const entry = this.entries.get(id)
    if (!entry) return
    this.entries.delete(id)
    entry.abort?.abort()
    const removal = this.drop(entry)
    await entry.turn
    await Promise.all([removal, this.drop(entry)]) // and a container the aborted run's `new` brought in meanwhile
  }

  /** Remove every session's container (runs in flight are aborted by the sandbox's close). */
  close(): void {
    this.closed = true
    for (const entry of this.entries.values()) {
      entry.abort?.abort()
      this.drop(entry)
    }
    this.entries.clear()
  }
}

export const abortedOutcome = (): SandboxOutcome => ({
  ok: false,
  error: { kind: 'aborted', message: 'the run was aborted' },
  droppedOutputBytes: 0,
})

/**
 * A container start, or undefined once `signal` aborts first; a container that arrives after the caller
 * left (or that `unwanted` says nobody takes any more) is destroyed.
 */
export async function arrival(
  taking: Promise<Spawned>,
  signal: AbortSignal,
  destroy: (ready: ReadyContainer) => unknown,
  unwanted = () => false,
): Promise<Spawned | undefined> {
  let gaveUp = false
  const spawned = await new Promise<Spawned | undefined>((resolve) => {
    const onAbort = (): void => {
      gaveUp = true
      resolve(undefined)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    void taking.then((s) => {
      signal.removeEventListener('abort', onAbort)
      if ((gaveUp || unwanted()) && s.ok) void destroy(s.ready)
      resolve(s)
    })
  })
  return gaveUp ? undefined : spawned
}

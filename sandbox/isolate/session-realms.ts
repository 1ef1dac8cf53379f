/**
 * Session realms, inside the child process: each session has an isolate of its own (its own memory limit)
 * and one persistent context in it, where the lockdown and the prelude's setup ran once, before any of
 * its programs. Each run then makes its own glue and per-run prelude state in that context (isolate-run.ts
 * with a `realm`), so the globals the earlier runs left are the next run's.
 *
 * A realm is gone when its isolate was disposed (a memory kill, a timeout, an abort: a limit disposes the
 * isolate) or the runtime ended it; a later run asking for the `existing` realm is told `session_lost` at
 * once, and the runtime restores the session by replay (runtime/session-restore.ts).
 *
 * A program may poison its own realm's builtins (Array.prototype, JSON …) for its later runs; it only
 * hurts its own session: the bridge carries JSON text through callbacks the host validates, and the
 * isolate's memory limit and the child's process boundary hold whatever the realm's state.
 */
import ivm from 'isolated-vm'
import type { SandboxOutcome, SandboxSessionRef } from '../types.js'
import { compileGuest, prepareRealm, type Realm } from './realm.js'
import type { PooledIsolate } from './pooled-isolate.js'

interface SessionRealm {
  readonly entry: PooledIsolate
  readonly realm: Realm
  busy: boolean
}

export type OpenedRealm = { ok: true; entry: PooledIsolate; realm: Realm } | { ok: false; outcome: SandboxOutcome }

export class SessionRealms {
  readonly #realms = new Map<string, SessionRealm>()

  get size(): number {
    return this.#realms.size
  }

  /** The realm for one run of a session: a new one (the old one discarded), or the one its earlier runs left. */
  async open(ref: SandboxSessionRef, memoryMb: number): Promise<OpenedRealm> {
    const held = this.#realms.get(ref.id)
    if (held?.entry.isolate.isDisposed) this.#realms.delete(ref.id)
    if (ref.realm === 'existing') {
      const live = this.#realms.get(ref.id)
      if (!live) return { ok: false, outcome: lost(`the realm of session ${ref.id} is gone`) }
      if (live.busy) return { ok: false, outcome: refused(`session ${ref.id} is already running a program`) }
      live.busy = true
      return { ok: true, entry: live.entry, realm: live.realm }
    }
    if (held?.busy) return { ok: false, outcome: refused(`session ${ref.id} is already running a program`) }
    this.end(ref.id)
    try {
      const created = await createRealm(memoryMb)
      this.#realms.set(ref.id, { ...created, busy: true })
      return { ok: true, ...created }
    } catch (e) {
      const message = `could not create the session's isolate: ${e instanceof Error ? e.message : String(e)}`
      return {
        ok: false,
        outcome: { ok: false, error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE', message }, droppedOutputBytes: 0 },
      }
    }
  }

  /** A run in the realm ended: a realm whose isolate a limit disposed is forgotten (the next run is told it is lost). */
  after(id: string, entry: PooledIsolate): void {
    const held = this.#realms.get(id)
    if (held?.entry !== entry) return
    held.busy = false
    held.entry.runs++
    if (entry.isolate.isDisposed) this.#realms.delete(id)
  }

  /** Free a session's realm. Idempotent. */
  end(id: string): void {
    const held = this.#realms.get(id)
    if (!held) return
    this.#realms.delete(id)
    if (!held.entry.isolate.isDisposed) held.entry.isolate.dispose()
  }

  disposeAll(): void {
    for (const id of [...this.#realms.keys()]) this.end(id)
  }
}

async function createRealm(memoryMb: number): Promise<{ entry: PooledIsolate; realm: Realm }> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb })
  try {
    const { lockdown, prelude, glue } = await compileGuest(isolate)
    // The lockdown, then the prelude's setup (which captures every intrinsic it uses), before any program.
    const realm = await prepareRealm({ isolate, lockdown, prelude, glue })
    return { entry: { isolate, lockdown, prelude, glue, memoryMb, runs: 0, ready: undefined, preparing: undefined }, realm }
  } catch (e) {
    if (!isolate.isDisposed) isolate.dispose()
    throw e
  }
}

function lost(message: string): SandboxOutcome {
  return { ok: false, error: { kind: 'session_lost', message }, droppedOutputBytes: 0 }
}

function refused(message: string): SandboxOutcome {
  return { ok: false, error: { kind: 'runtime', code: 'EBUSY', message }, droppedOutputBytes: 0 }
}

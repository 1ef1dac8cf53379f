/**
 * A ready context ("realm"): a fresh context in a pooled isolate with the lockdown (`lockdown.ts`) run, the
 * prelude and the glue's setup (`glue.ts`) evaluated in it, and nothing else: no program, no host
 * callback. Preparing one is most of a run's own isolate work (creating the context is nearly all of it),
 * so the pool prepares the next one ahead, while the isolate is idle between runs (`pool.ts`), and a run
 * finds it waiting; the run then only calls the glue with its own callbacks.
 *
 * A realm serves exactly one run and is released with it; nothing of any program has run in a prepared
 * one, so taking it is the same as creating it at the start of the run. Anyone who needs a locked-down
 * context with the prelude (a run, a session's persistent context) makes it here.
 */
import type ivm from 'isolated-vm'

/** The glue's `control` function (glue.ts). */
export type Control = ivm.Reference<(op: string, a?: unknown, b?: unknown) => unknown>

export interface Realm {
  readonly context: ivm.Context
  /** The prelude's setup function, evaluated in `context` (sdk/prelude.ts: `(hostCall, hostLog, config, hostTimer?) => runProgram`). */
  readonly preludeFn: ivm.Reference<unknown>
  /** The glue (glue.ts: `(preludeFn, send, log, timer) => control`), evaluated in `context`. */
  readonly glueFn: ivm.Reference<unknown>
}

/** What a realm is made from: the isolate and its three scripts, compiled once per isolate. */
export interface RealmSource {
  readonly isolate: ivm.Isolate
  readonly lockdown: ivm.Script
  readonly prelude: ivm.Script
  readonly glue: ivm.Script
}

/** Setup runs only the runtime's own scripts; the timeout is a guard, not a budget. */
export const REALM_SETUP_TIMEOUT_MS = 2000

/** The runtime's scripts, in order, in a context nothing else has run in yet. */
function setUp(source: RealmSource, context: ivm.Context, timeoutMs: number): Realm {
  try {
    // Before anything else evaluates in this context.
    source.lockdown.runSync(context, { timeout: timeoutMs })
    const preludeFn = source.prelude.runSync(context, { reference: true, timeout: timeoutMs }) as ivm.Reference<unknown>
    const glueFn = source.glue.runSync(context, { reference: true, timeout: timeoutMs }) as ivm.Reference<unknown>
    return { context, preludeFn, glueFn }
  } catch (e) {
    context.release()
    throw e
  }
}

/** Make a realm now, on this thread (the isolate must be idle). Throws what isolated-vm throws. */
export function prepareRealmSync(source: RealmSource, timeoutMs = REALM_SETUP_TIMEOUT_MS): Realm {
  return setUp(source, source.isolate.createContextSync(), timeoutMs)
}

/**
 * Make a realm ahead of a run (between runs). Creating the context, nearly all the cost, happens on the
 * isolate's own thread, leaving this one free; the three scripts then run here, synchronously: the isolate
 * has just finished that task and nothing else is queued on it, and three more hops there and back would
 * cost more than the scripts.
 */
export async function prepareRealm(source: RealmSource, timeoutMs = REALM_SETUP_TIMEOUT_MS): Promise<Realm> {
  const context = await source.isolate.createContext()
  return setUp(source, context, timeoutMs)
}

/** Call the glue with a run's host callbacks (synchronously: the isolate is idle before the run's start). */
export function bindGlue(realm: Realm, callbacks: readonly ivm.Callback[], timeoutMs: number): Control {
  return realm.glueFn.applySync(undefined, [realm.preludeFn.derefInto(), ...callbacks], {
    result: { reference: true },
    timeout: timeoutMs,
  }) as unknown as Control
}

/** Let the realm go (a disposed isolate took it already: then this does nothing). */
export function releaseRealm(realm: Realm, isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return
  try {
    realm.glueFn.release()
    realm.preludeFn.release()
    realm.context.release()
  } catch {
    // disposed in between
  }
}

/**
 * A ready context ("realm"): a fresh context in a pooled isolate with the lockdown (`lockdown.ts`) run and
 * the prelude evaluated in it, and nothing else: no glue, no host callback, no program. Preparing one is
 * most of a run's own isolate work (creating the context alone is half of it), so the pool prepares the
 * next one ahead, while the isolate is idle between runs (`pool.ts`), and a run finds it waiting.
 *
 * A realm serves exactly one run and is released with it; nothing of any program has run in a prepared
 * one, so taking it is the same as creating it at the start of the run. Anyone who needs a locked-down
 * context with the prelude (a run, a session's persistent context) makes it here.
 */
import type ivm from 'isolated-vm'

export interface Realm {
  readonly context: ivm.Context
  /** The prelude's setup function, evaluated in `context` (sdk/prelude.ts: `(hostCall, hostLog, config, hostTimer?) => runProgram`). */
  readonly preludeFn: ivm.Reference<unknown>
}

/** What a realm is made from: the isolate and its two scripts, compiled once per isolate. */
export interface RealmSource {
  readonly isolate: ivm.Isolate
  readonly lockdown: ivm.Script
  readonly prelude: ivm.Script
}

/** Setup runs only the runtime's own scripts; the timeout is a guard, not a budget. */
export const REALM_SETUP_TIMEOUT_MS = 2000

/** Make a realm now, on this thread (the isolate must be idle). Throws what isolated-vm throws. */
export function prepareRealmSync(source: RealmSource, timeoutMs = REALM_SETUP_TIMEOUT_MS): Realm {
  const context = source.isolate.createContextSync()
  try {
    // Before anything else evaluates in this context.
    source.lockdown.runSync(context, { timeout: timeoutMs })
    const preludeFn = source.prelude.runSync(context, { reference: true, timeout: timeoutMs }) as ivm.Reference<unknown>
    return { context, preludeFn }
  } catch (e) {
    context.release()
    throw e
  }
}

/** Make a realm on the isolate's own thread, leaving this one free (used ahead of a run, between runs). */
export async function prepareRealm(source: RealmSource, timeoutMs = REALM_SETUP_TIMEOUT_MS): Promise<Realm> {
  const context = await source.isolate.createContext()
  try {
    await source.lockdown.run(context, { timeout: timeoutMs })
    const preludeFn = (await source.prelude.run(context, { reference: true, timeout: timeoutMs })) as ivm.Reference<unknown>
    return { context, preludeFn }
  } catch (e) {
    context.release()
    throw e
  }
}

/** Let the realm go (a disposed isolate took it already: then this does nothing). */
export function releaseRealm(realm: Realm, isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return
  try {
    realm.preludeFn.release()
    realm.context.release()
  } catch {
    // disposed in between
  }
}

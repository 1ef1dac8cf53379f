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
import ivm from 'isolated-vm'
import { guestSource } from '../guest-source.js'
import { urlRecord, urlSet } from '../url-host.js'

/** The glue's `control` function (glue.ts). */
export type Control = ivm.Reference<(op: string, a?: unknown, b?: unknown) => unknown>

export interface Realm {
  readonly context: ivm.Context
  /** Set on a pooled realm armed ahead of its run (armRealm); a session's realm is armed per run instead. */
  armed?: Armed
  /** The prelude's setup function, evaluated in `context` (guest/run.ts: `(hostCall, hostLog, config, hostTimer?) => runProgram`). */
  readonly preludeFn: ivm.Reference<unknown>
  /** The glue (guest/bridge/isolate.ts: `(preludeFn, send, log, timer, config, urlRecord, urlSet) => control`), evaluated in `context`. */
  readonly glueFn: ivm.Reference<unknown>
}

/** What a realm is made from: the isolate and its three scripts, compiled once per isolate. */
export interface RealmSource {
  readonly isolate: ivm.Isolate
  readonly lockdown: ivm.Script
  readonly prelude: ivm.Script
  readonly glue: ivm.Script
}

/** The file names the guest's scripts carry in stacks. */
const GUEST_FILENAMES = { lockdown: 'codeact-lockdown.js', prelude: 'codeact-prelude.js', glue: 'codeact-glue.js' } as const

/** The guest's three isolate scripts (guest/, built into dist/guest-bundle/), compiled into `isolate`. */
export async function compileGuest(isolate: ivm.Isolate): Promise<RealmSource> {
  const [lockdown, prelude, glue] = await Promise.all([
    isolate.compileScript(guestSource('lockdown'), { filename: GUEST_FILENAMES.lockdown }),
    isolate.compileScript(guestSource('prelude'), { filename: GUEST_FILENAMES.prelude }),
    isolate.compileScript(guestSource('isolate-bridge'), { filename: GUEST_FILENAMES.glue }),
  ])
  return { isolate, lockdown, prelude, glue }
}

/** Setup runs only the runtime's own scripts; the timeout is a guard, not a budget. */
export const REALM_SETUP_TIMEOUT_MS = 2000

/**
 * The runtime's scripts, in order, in a context nothing else has run in yet (here, synchronously: the
 * isolate must be idle). Throws what isolated-vm throws, the context released.
 */
export function setUp(source: RealmSource, context: ivm.Context, timeoutMs = REALM_SETUP_TIMEOUT_MS): Realm {
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

/** What the glue's host callbacks do for the run that holds the realm (isolate-run.ts); arguments unchecked. */
export interface RunHooks {
  send(callId: unknown, name: unknown, argsJson: unknown): void
  log(level: unknown, text: unknown): void
  timer(op: unknown, id: unknown, ms: unknown): void
}

/**
 * A realm with the glue bound and the prelude's per-run setup done for one run's config (its tool names and
 * output cap, as JSON text): all a run then does is run its program script and 'start' it. The callbacks
 * go to the hooks `attach` set, and do nothing until then: nothing in the realm calls them before 'start'.
 */
export interface Armed {
  /** The config the prelude was set up with; a run with any other needs another realm. */
  readonly config: string
  readonly control: Control
  attach(hooks: RunHooks | undefined): void
}

/**
 * The host's URL parser (url-host.ts) as synchronous callbacks: the guest's URL calls them and waits for the
 * answer, which this process computes with its own URL. Pure, so one pair serves every realm; strings in and
 * out, never throwing, so nothing of this process reaches the isolate through them.
 */
const URL_CALLBACKS = [new ivm.Callback(urlRecord, { sync: true }), new ivm.Callback(urlSet, { sync: true })]

/**
 * Bind the glue to fresh host callbacks and run the prelude's per-run setup with `config` (synchronously:
 * the isolate is idle, and only the runtime's own scripts have run in the realm). Ahead of a run (pool.ts),
 * with the config the last run had, this takes the setup off the run's path; at a run's start, with its own.
 */
export function armRealm(realm: Realm, config: string, timeoutMs: number): Armed {
  let hooks: RunHooks | undefined
  const callbacks = [
    new ivm.Callback((a: unknown, b: unknown, c: unknown) => hooks?.send(a, b, c), { ignored: true }),
    new ivm.Callback((a: unknown, b: unknown) => hooks?.log(a, b), { ignored: true }),
    new ivm.Callback((a: unknown, b: unknown, c: unknown) => hooks?.timer(a, b, c), { ignored: true }),
  ]
  // The glue runs the prelude's setup with `config` in the same call (a second sync call was ~5–10 µs).
  const control = realm.glueFn.applySync(undefined, [realm.preludeFn.derefInto(), ...callbacks, config, ...URL_CALLBACKS], {
    result: { reference: true },
    timeout: timeoutMs,
  }) as unknown as Control
  return { config, control, attach: (next) => void (hooks = next) }
}

/** Let the realm go (a disposed isolate took it already: then this does nothing). */
export function releaseRealm(realm: Realm, isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return
  try {
    realm.armed?.control.release()
    realm.glueFn.release()
    realm.preludeFn.release()
    realm.context.release()
  } catch {
    // disposed in between
  }
}

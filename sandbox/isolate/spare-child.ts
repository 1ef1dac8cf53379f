/**
 * One warm child process per host process, shared by every isolate sandbox in it (per child entry and
 * config), so a new runtime in a process that already has one starts its first run without a cold spawn
 * (~50–100 ms of Node start-up and loading isolated-vm). Every child a sandbox's pool spawns is taken from
 * here when one is ready, and a new spare is started in its place once the taker's first run is likely
 * done (REFILL_AFTER_MS).
 *
 * Only a child that no caller has used is ever handed out, and only once: from then on it belongs to the
 * pool that took it (caller-pool.ts: one caller for its whole life). Opt-in (`shareSpare`), because it is
 * one more process: it is kept only while a sandbox that asked for it is open, and never holds the
 * process's event loop.
 *
 * A process that knows it is about to create a sandbox (the CLI, before it loads the runtime) can also
 * `prestartChild`: one child started early, taken by the first sandbox of this process that spawns one with
 * the same entry and config, never replaced and never handed out twice; `dropPrestarted` ends it if no
 * sandbox took it.
 *
 * The shared spare's lifecycle is the shared one (vocabulary/warm-pool.ts): a pool of one for the entry and
 * config last asked, warm while a sandbox that shares is open, its health rule and refill delay, closed
 * (the child killed and awaited) when the last such sandbox closes.
 */
import { WarmPool } from '../../vocabulary/warm-pool.js'
import type { ChildConfig, FromChild } from './protocol.js'
import { type ChildExit, type ChildListener, SupervisedChild } from './supervisor.js'

/** Forwards a child's messages to whichever sandbox took it; none yet: it is still the spare. */
class Relay implements ChildListener {
  target: ChildListener | undefined
  onExitUnowned: (() => void) | undefined

  message(message: FromChild, child: SupervisedChild): void {
    this.target?.message(message, child)
  }

  exit(exit: ChildExit, child: SupervisedChild): void {
    if (this.target) this.target.exit(exit, child)
    else this.onExitUnowned?.()
  }
}

interface Prestarted {
  readonly key: string
  readonly relay: Relay
  readonly child: Promise<SupervisedChild | string>
}

interface Spare {
  readonly relay: Relay
  readonly child: SupervisedChild
}

let shared: { key: string; pool: WarmPool<Spare> } | undefined
let open = 0
let prestarted: Prestarted | undefined

/**
 * A spare taken is replaced this long after, not at once: starting a child is a few ms of the host's own
 * thread (the spawn) and then a core while Node and isolated-vm start, which the taker's first run would
 * otherwise share. A sandbox that needs a child before then spawns its own and starts the replacement at once.
 */
const REFILL_AFTER_MS = 250
/** The child's own start is bounded (supervisor.ts's ready timeout); this bounds the whole spawn. */
const START_TIMEOUT_MS = 60_000
/** A kill is SIGKILL: the child is gone once its streams close. */
const STOP_TIMEOUT_MS = 10_000
/** The spare is never trimmed for idleness (keep 1): this is only how often that is looked at. */
const IDLE_CHECK_MS = 60_000

/** Starts the one child the next sandbox of this process will spawn (same entry and config), ahead of time. */
export function prestartChild(entry: string, config: ChildConfig): void {
  if (prestarted) return
  const relay = new Relay()
  const child = SupervisedChild.spawn(entry, config, relay).then((c) => {
    if (typeof c !== 'string') c.hold(false)
    return c
  })
  const mine: Prestarted = { key: `${entry}\n${JSON.stringify(config)}`, relay, child }
  const gone = () => {
    if (prestarted === mine) prestarted = undefined
  }
  relay.onExitUnowned = gone
  // A child that could not start is dropped; the next spawn tries again.
  void child.then((c) => typeof c === 'string' && gone())
  prestarted = mine
}

/** Ends the prestarted child if no sandbox took it. */
export async function dropPrestarted(): Promise<void> {
  const left = prestarted
  prestarted = undefined
  const child = await left?.child
  if (child !== undefined && typeof child !== 'string') await end(child)
}

/** What a sandbox's pool calls for each child: the prestarted one if it matches, else shared or fresh. */
export async function spawnChild(
  share: boolean,
  entry: string,
  config: ChildConfig,
  listener: ChildListener,
): Promise<SupervisedChild | string> {
  const key = `${entry}\n${JSON.stringify(config)}`
  const early = prestarted?.key === key ? prestarted : undefined
  if (early) {
    prestarted = undefined
    // The spare stands ready for the next one (after the refill delay: this taker's run comes first).
    if (share && open > 0) sharedPool(key, entry, config).fill(true)
    const child = await early.child
    if (typeof child !== 'string' && child.alive) {
      early.relay.target = listener
      return child
    }
  }
  return share ? spawnSharedChild(key, entry, config, listener) : SupervisedChild.spawn(entry, config, listener)
}

/** A sandbox that shares the spare opened. Returns its release (call once, on close). */
export function retainSpare(): () => Promise<void> {
  open++
  let released = false
  return async () => {
    if (released) return
    released = true
    open--
    if (open > 0 || !shared) return
    // The last sandbox closed: nothing may be left running (a caller that ends its process expects that).
    const { pool } = shared
    shared = undefined
    await pool.close()
  }
}

/** A ready child for `listener`: the spare when one matches (and a new spare starts), else a fresh spawn. */
async function spawnSharedChild(
  key: string,
  entry: string,
  config: ChildConfig,
  listener: ChildListener,
): Promise<SupervisedChild | string> {
  if (open <= 0) return SupervisedChild.spawn(entry, config, listener)
  const pool = sharedPool(key, entry, config)
  const taken = await pool.take()
  if (!taken.ok) return SupervisedChild.spawn(entry, config, listener)
  pool.detach(taken.resource)
  taken.resource.relay.target = listener
  return taken.resource.child
}

/** The pool of one spare for `key`; another configuration's spare is let go (one per process at most). */
function sharedPool(key: string, entry: string, config: ChildConfig): WarmPool<Spare> {
  if (shared?.key === key) return shared.pool
  void shared?.pool.close()
  const pool: WarmPool<Spare> = new WarmPool<Spare>(
    {
      create: async () => {
        const relay = new Relay()
        const child = await SupervisedChild.spawn(entry, config, relay)
        if (typeof child === 'string') return { ok: false, message: child }
        child.hold(false)
        const spare: Spare = { relay, child }
        relay.onExitUnowned = () => pool.retire(spare)
        return { ok: true, resource: spare }
      },
      destroy: ({ child }) => end(child),
      healthy: ({ child }) => child.alive,
    },
    {
      name: 'the shared spare child',
      warm: () => (open > 0 && shared?.pool === pool ? 1 : 0),
      keep: 1,
      max: Number.POSITIVE_INFINITY,
      idleMs: IDLE_CHECK_MS,
      startTimeoutMs: START_TIMEOUT_MS,
      stopTimeoutMs: STOP_TIMEOUT_MS,
      refillDelayMs: REFILL_AFTER_MS,
    },
  )
  shared = { key, pool }
  return pool
}

/** Kills `child` and waits for its end, holding the event loop meanwhile (a CLI that ends one just before it
 * exits would otherwise exit 13, its top-level await unsettled). */
async function end(child: SupervisedChild): Promise<void> {
  child.hold(true)
  child.kill()
  await child.closed
}

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
 */
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

interface Spare {
  readonly key: string
  readonly relay: Relay
  readonly child: Promise<SupervisedChild | string>
}

let spare: Spare | undefined
let open = 0
let prestarted: Spare | undefined
/** A taken spare's replacement, waiting for its start (see REFILL_AFTER_MS). */
let refill: NodeJS.Timeout | undefined

/**
 * A spare taken is replaced this long after, not at once: starting a child is ~5 ms of the host's own thread
 * (the spawn) and then a core for ~50–100 ms (Node and isolated-vm starting), which the taker's first run
 * would otherwise share (it took 3–4× as long). A sandbox that needs a child before then spawns its own and
 * starts the replacement at once.
 */
const REFILL_AFTER_MS = 250

function startChild(key: string, entry: string, config: ChildConfig, onGone: (mine: Spare) => void): Spare {
  const relay = new Relay()
  const child = SupervisedChild.spawn(entry, config, relay).then((c) => {
    if (typeof c !== 'string') c.hold(false)
    return c
  })
  const mine: Spare = { key, relay, child }
  relay.onExitUnowned = () => onGone(mine)
  // A child that could not start is dropped; the next spawn tries again.
  void child.then((c) => typeof c === 'string' && onGone(mine))
  return mine
}

/** Starts the one child the next sandbox of this process will spawn (same entry and config), ahead of time. */
export function prestartChild(entry: string, config: ChildConfig): void {
  if (prestarted) return
  prestarted = startChild(`${entry}\n${JSON.stringify(config)}`, entry, config, (mine) => {
    if (prestarted === mine) prestarted = undefined
  })
}

/** Ends the prestarted child if no sandbox took it. */
export async function dropPrestarted(): Promise<void> {
  const left = prestarted
  prestarted = undefined
  const child = await left?.child
  if (child !== undefined && typeof child !== 'string') {
    // Held while it dies: unheld, awaiting its end would leave nothing keeping the event loop up (a CLI
    // that drops it just before exiting would exit 13, its top-level await unsettled).
    child.hold(true)
    child.kill()
    await child.closed
  }
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
    if (share && open > 0) refillLater(key, entry, config)
    const child = await early.child
    if (typeof child !== 'string' && child.alive) {
      early.relay.target = listener
      return child
    }
  }
  return share ? spawnSharedChild(entry, config, listener) : SupervisedChild.spawn(entry, config, listener)
}

/** A sandbox that shares the spare opened. Returns its release (call once, on close). */
export function retainSpare(): () => Promise<void> {
  open++
  let released = false
  return async () => {
    if (released) return
    released = true
    open--
    if (open > 0) return
    clearTimeout(refill)
    refill = undefined
    if (!spare) return
    // The last sandbox closed: nothing may be left running (a caller that ends its process expects that).
    const last = spare
    spare = undefined
    const child = await last.child
    if (typeof child !== 'string') {
      child.hold(true) // as in dropPrestarted: the loop stays up until it is gone
      child.kill()
      await child.closed
    }
  }
}

/** A ready child for `listener`: the spare when one matches (and a new spare starts), else a fresh spawn. */
async function spawnSharedChild(entry: string, config: ChildConfig, listener: ChildListener): Promise<SupervisedChild | string> {
  const key = `${entry}\n${JSON.stringify(config)}`
  const taken = spare?.key === key ? spare : undefined
  if (taken) spare = undefined
  if (taken && open > 0) refillLater(key, entry, config)
  else if (open > 0) startSpare(key, entry, config)
  if (taken) {
    const child = await taken.child
    if (typeof child !== 'string' && child.alive) {
      taken.relay.target = listener
      return child
    }
  }
  return SupervisedChild.spawn(entry, config, listener)
}

/** The replacement of a spare just taken, REFILL_AFTER_MS from now (unless a spawn starts it sooner). */
function refillLater(key: string, entry: string, config: ChildConfig): void {
  clearTimeout(refill)
  refill = setTimeout(() => {
    refill = undefined
    if (open > 0) startSpare(key, entry, config)
  }, REFILL_AFTER_MS)
  refill.unref()
}

function startSpare(key: string, entry: string, config: ChildConfig): void {
  clearTimeout(refill)
  refill = undefined
  if (spare) {
    if (spare.key === key) return
    // Another configuration's spare: one spare per process at most.
    const old = spare.child
    void old.then((c) => typeof c !== 'string' && c.kill())
  }
  spare = startChild(key, entry, config, (mine) => {
    if (spare === mine) spare = undefined
  })
}

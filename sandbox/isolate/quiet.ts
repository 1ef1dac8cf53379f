/**
 * The child's quiet moments. A harness sits idle between a model's turns, usually for seconds, so the footprint
 * at rest is the one its users live with. After `quietMs` without a run (none started or ended), the child
 * lets go of what it keeps for runs in quick succession (pool.ts trimQuiet: the isolate one over the warm
 * count; the kept one's heap compacted, its prepared realm kept) and compacts its own V8 heap. Measured after
 * 1,000 runs (README, Benchmarks: Memory): the child's VmRSS at rest ~60 → ~55 MB.
 *
 * Only a timer of this process, unreferenced: it never keeps the child alive (the channel to the supervisor
 * does, and its close ends the child). A run that arrives during the trim finds the kept isolate and waits
 * for its collection to end, as it waits for a realm being prepared.
 */
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { compacting } from './collect.js'

export class Quiet {
  readonly #ms: number
  readonly #trim: () => Promise<void>[] | false
  readonly #busy: () => boolean
  #timer: NodeJS.Timeout | undefined

  /** `trim`: the pool's (false: not now, try again later); `busy`: whether a run is in this process. */
  constructor(ms: number, trim: () => Promise<void>[] | false, busy: () => boolean) {
    this.#ms = ms
    this.#trim = trim
    this.#busy = busy
  }

  /** A run started or ended: the quiet period starts over. */
  touch(): void {
    // 0 or less: never. Past a Node timer's range (or NaN) a timer fires at once: never too, not every run.
    if (!(this.#ms > 0 && this.#ms <= 2 ** 31 - 1)) return
    if (this.#timer) return void this.#timer.refresh()
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      // Only memory is at stake: a trim that failed must not end the process (and every run in it).
      this.#quiet().catch(() => {})
    }, this.#ms)
    this.#timer.unref()
  }

  async #quiet(): Promise<void> {
    // A run in flight touches again when it ends.
    if (this.#busy()) return
    const collections = this.#trim()
    if (collections === false) return this.touch()
    await Promise.all(collections)
    // A run that came meanwhile left garbage of its own; the next quiet moment collects it.
    if (this.#busy()) return
    const gc = ownCollector()
    if (gc) await compacting(async () => gc())
  }
}

let ownGc: (() => void) | null | undefined

/**
 * V8's `gc` for this process's own heap (protocol messages and the pool's bookkeeping; no program runs in
 * it), from a context of its own made with `--expose-gc` on for that moment only (as collect.ts does).
 */
function ownCollector(): (() => void) | null {
  if (ownGc !== undefined) return ownGc
  v8.setFlagsFromString('--expose-gc')
  try {
    const found = runInNewContext('gc') as unknown
    ownGc = typeof found === 'function' ? (found as () => void) : null
  } catch {
    ownGc = null
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
  return ownGc
}

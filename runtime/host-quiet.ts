/**
 * The host's quiet moments. A harness sits idle between a model's turns, and the footprint at rest is the one
 * its users live with. During runs in quick succession V8 grows the host's young generation (2 → 16 MB of
 * semi-spaces, README: Benchmarks, Memory) and shrinks it only at a collection that finds the allocation
 * rate low: its memory reducer makes one 8–25 s after a burst when it is armed, and often it is not (2 of 3
 * probes after 1,000 runs kept the 16 MB for good). So when no run has started or ended in this process for
 * QUIET_MS, a full collection is asked for (and a second one a second later, below): V8 itself then decides what to shrink (it did: host VmRSS
 * 85 → 71 MB, young generation 16 → 1 MB, ~8 ms of the host's CPU).
 *
 * No V8 flag is set (the library sets none in a user's process). The one public way to ask V8 for a full
 * collection without `--expose-gc` is `vm.measureMemory` with eager execution (Node 20–22 mark it
 * experimental: its warning, emitted once and synchronously, is held back — it is not the user's API call;
 * where `process.emitWarning` cannot be replaced, nothing is asked for).
 * Its timer is unreferenced: it never keeps the host's event loop alive.
 */
import { measureMemory } from 'node:vm'

/** Long enough that V8's recent allocation rate (a 5 s window) is the quiet's, so the young generation shrinks. */
const QUIET_MS = 6000

/**
 * The first collection frees what a burst left (an HTTP server's closed sessions, a run's events); the old
 * generation's pages it emptied or left sparse are given back, or compacted, only at the next one.
 */
const COLLECTIONS = 2
const BETWEEN_COLLECTIONS_MS = 1000

let timer: NodeJS.Timeout | undefined

/** A run started or ended in this process: the quiet period starts over. */
export function noteHostActivity(): void {
  if (timer) return void timer.refresh()
  timer = setTimeout(() => {
    timer = undefined
    collect(COLLECTIONS)
  }, QUIET_MS)
  timer.unref()
}

function collect(passes: number): void {
  const emitWarning = process.emitWarning
  try {
    process.emitWarning = () => {}
  } catch {
    // A process whose emitWarning cannot be replaced would see a warning it never asked for: no collection.
    return
  }
  try {
    const measured = measureMemory({ mode: 'summary', execution: 'eager' })
    measured.then(
      () => {
        // Activity since then starts the quiet over, and the collections with it.
        if (passes > 1 && !timer)
          setTimeout(() => {
            if (!timer) collect(passes - 1)
          }, BETWEEN_COLLECTIONS_MS).unref()
      },
      () => {},
    )
  } catch {
    // Not in this Node: V8's own memory reducer is all there is.
  } finally {
    process.emitWarning = emitWarning
  }
}

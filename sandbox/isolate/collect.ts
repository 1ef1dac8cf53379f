/**
 * Handing a pooled isolate's garbage back to the system (pool.ts), inside the child process.
 *
 * Every run leaves its context behind as garbage (~0.1 MB), and V8 collects it only when the heap reaches
 * its allocation limit (live + 8 MB and more); even then it keeps the pages. V8 returns memory only from a
 * collection that compacts: its memory reducer (which isolated-vm's platform never runs) or the low-memory
 * notification (which isolated-vm sends only at the memory limit). Measured over 1,000 runs: two warm
 * isolates held 8–18 MB of heap each, the child's RSS swung between 54 and 93 MB.
 *
 * So after a run that left an isolate's heap above a threshold, while the isolate is idle, the pool runs
 * one full collection on the isolate's own thread. V8's `gc` function is the only way to ask that
 * isolated-vm leaves: it is installed, with `--expose-gc` switched on for that moment only, in one context
 * of the pool's own per isolate (no program ever runs there), and in no other context. The lockdown deletes
 * `gc` from every context anyway, for a context another isolate's thread created in that moment.
 *
 * The collection compacts only when asked (pool.ts: when the heap holds far more pages than it uses). A run's
 * garbage is its whole context, so a plain mark-sweep leaves whole pages empty, and V8 hands those back too:
 * measured over 6,000 realms, the same heap (used 0.6–2.1 MB, 2.1–3.2 MB resident) either way, and the same
 * child RSS. Compacting every time moved the isolate's live ~1.5 MB to new pages at each collection: ~35
 * more page faults per run, ~27% of a trivial run's CPU in the child (2.21 → 1.61 ms, interleaved).
 * `--compact-on-every-full-gc` is on only while a compacting collection is in flight: kept on, it made
 * programs with a large live heap 2–2.5× slower (their own collections compacted too).
 */
import v8 from 'node:v8'
import type ivm from 'isolated-vm'

/** One full collection of the isolate, on its own thread, compacting if asked; resolves when done (never rejects). */
export type Collect = (compact: boolean) => Promise<void>

/** A collector for `isolate` (which must be idle), or undefined if V8 would not give one. */
export function collectorFor(isolate: ivm.Isolate): Collect | undefined {
  let gc: ivm.Reference<() => void>
  v8.setFlagsFromString('--expose-gc')
  try {
    const janitor = isolate.createContextSync()
    const found = janitor.global.getSync('gc', { reference: true }) as ivm.Reference<() => void>
    if (found.typeof !== 'function') {
      janitor.release()
      return undefined
    }
    gc = found
  } catch {
    return undefined
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
  const collect = () => gc.apply(undefined, [])
  return (compact) =>
    (compact ? compacting(collect) : collect()).then(
      () => {},
      () => {},
    )
}

let inFlight = 0

/** Run `work` with full collections compacting (process-wide: counted, so overlapping ones keep it on). */
export async function compacting<T>(work: () => Promise<T>): Promise<T> {
  if (inFlight++ === 0) v8.setFlagsFromString('--compact-on-every-full-gc')
  try {
    return await work()
  } finally {
    if (--inFlight === 0) v8.setFlagsFromString('--no-compact-on-every-full-gc')
  }
}

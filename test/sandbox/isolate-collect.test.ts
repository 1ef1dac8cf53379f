/**
 * The pool's collection of past runs' garbage (sandbox/isolate/pooled-isolate.ts's collectionFor, collect.ts),
 * on a real isolate: a run's garbage is its whole context, so a plain (non-compacting) full collection leaves
 * its pages empty and V8 hands them back; compacting, which moves every live object to new pages and cost
 * ~35 page faults a run, is kept for a heap with far more resident pages than it uses.
 */
import ivm from 'isolated-vm'
import { describe, expect, it } from 'vitest'
import { collectorFor } from '../../sandbox/isolate/collect.js'
import { collectionFor } from '../../sandbox/isolate/pooled-isolate.js'

const MB = 1024 * 1024

/** Heap statistics as V8 reports them, with the three figures the decision reads. */
function heap(usedMb: number, physicalMb: number, externalMb = 0): ivm.HeapStatistics {
  const isolate = new ivm.Isolate({ memoryLimit: 16 })
  try {
    return {
      ...isolate.getHeapStatisticsSync(),
      used_heap_size: usedMb * MB,
      total_physical_size: physicalMb * MB,
      externally_allocated_size: externalMb * MB,
    }
  } finally {
    isolate.dispose()
  }
}

describe('isolate pool: which collection a returned isolate gets', () => {
  it('none for a small heap, a plain one past 3 MB (external memory counts), a compacting one with 8 MB of slack', () => {
    expect(collectionFor(heap(2, 4))).toBeUndefined()
    expect(collectionFor(heap(2, 4, 2))).toBe('plain')
    expect(collectionFor(heap(4, 6))).toBe('plain')
    expect(collectionFor(heap(4, 11))).toBe('plain')
    expect(collectionFor(heap(4, 13))).toBe('compact')
  })
})

describe('isolate pool: a plain collection hands past runs back', () => {
  it('after contexts that each dropped 2 MB, the heap is back under the threshold and its pages are let go', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 })
    try {
      const script = isolate.compileScriptSync('globalThis.kept = Array.from({ length: 20000 }, (_, i) => ({ i, s: "x" + i })); 1')
      // V8 may collect on its own along the way: go on until the heap holds past runs' garbage.
      let before = isolate.getHeapStatisticsSync()
      for (let i = 0; i < 200 && (i < 30 || collectionFor(before) !== 'plain'); i++) {
        const context = isolate.createContextSync()
        script.runSync(context)
        context.release()
        before = isolate.getHeapStatisticsSync()
      }
      expect(collectionFor(before)).toBe('plain')
      const collect = collectorFor(isolate)
      expect(collect).toBeDefined()
      await collect?.(false)
      const after = isolate.getHeapStatisticsSync()
      expect(collectionFor(after)).toBeUndefined()
      // Without compaction the emptied pages went back all the same (how many varies with what V8 did meanwhile).
      expect(after.total_physical_size).toBeLessThan(before.total_physical_size * 0.75)
      // Below the slack that would make the next collection a compacting one (collect.ts): 8 MB.
      expect(after.total_physical_size - after.used_heap_size).toBeLessThan(8 * MB)
    } finally {
      isolate.dispose()
    }
  })
})

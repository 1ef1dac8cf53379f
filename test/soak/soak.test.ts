/** A short soak (300 mixed and fuzzed runs): every run answers, nothing leaks. `make soak` runs thousands. */
import { expect, it } from 'vitest'
import { soak } from './soak-core.js'

it('300 mixed and fuzzed runs: each a RunResult, every call answered, no leaked process, descriptor, handle or heap', async () => {
  const report = await soak({ runs: 300, concurrency: 4, seed: 7 })
  expect(report.runs).toBe(300)
  expect(report.notResults).toBe(0)
  expect(report.unanswered).toBe(0)
  // Every kind of outcome was exercised, not just one.
  const kinds = new Set(Object.keys(report.outcomes).map((k) => k.split('→')[1]))
  for (const kind of ['ok', 'compile', 'runtime', 'timeout', 'memory']) expect(kinds, JSON.stringify(report.outcomes)).toContain(kind)
  expect(report.childrenAfterClose).toBe(0)
  expect(report.fdEnd - report.fdStart).toBeLessThan(16)
  // Counts, sampled after every 50 runs: a timer, listener or socket left behind by each run adds
  // dozens of handles between the second window and the last; a run's work in flight is a handful.
  expect(report.windows.length).toBeGreaterThanOrEqual(6)
  expect(Math.max(...report.windows.map((w) => w.activeResources)), JSON.stringify(report.windows)).toBeLessThan(40)
  expect(report.growth.activeResources).toBeLessThanOrEqual(4)
  // The JS heap after a full collection: the log's events (bounded) are ~0.3 MB over these runs; a run's
  // program, source map or result kept by a closure would be ~1 MB per 100 runs.
  expect(report.growth.heapRetainedMb, JSON.stringify(report.windows)).toBeLessThan(1.5)
  // Generous: this process also holds vitest; `make soak` judges RSS after warm-up over thousands of runs.
  expect(report.rssEndMb - report.rssStartMb).toBeLessThan(150)
}, 300_000)

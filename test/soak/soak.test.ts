/** A short soak (300 mixed and fuzzed runs): every run answers, nothing leaks. `make soak` runs thousands. */
import { expect, it } from 'vitest'
import { soak } from './soak-core.js'

it('300 mixed and fuzzed runs: each a RunResult, every call answered, no leaked process or descriptor', async () => {
  const report = await soak({ runs: 300, concurrency: 4, seed: 7 })
  expect(report.runs).toBe(300)
  expect(report.notResults).toBe(0)
  expect(report.unanswered).toBe(0)
  // Every kind of outcome was exercised, not just one.
  const kinds = new Set(Object.keys(report.outcomes).map((k) => k.split('→')[1]))
  for (const kind of ['ok', 'compile', 'runtime', 'timeout', 'memory']) expect(kinds, JSON.stringify(report.outcomes)).toContain(kind)
  expect(report.childrenAfterClose).toBe(0)
  expect(report.fdEnd - report.fdStart).toBeLessThan(16)
  // Generous: this process also holds vitest; `make soak` holds the 50 MB goal over thousands of runs.
  expect(report.rssEndMb - report.rssStartMb).toBeLessThan(150)
}, 300_000)

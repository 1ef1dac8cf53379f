/** A short soak on the Docker backend (40 mixed and fuzzed runs); `make soak` runs 500. */
import { describe, expect, it } from 'vitest'
import { soak } from './soak-core.js'

describe.skipIf(process.env['CODEACT_DOCKER'] !== '1')('docker soak', () => {
  it('40 mixed and fuzzed runs: each a RunResult, every call answered, no container left', async () => {
    const report = await soak({ runs: 40, concurrency: 2, seed: 11, sandbox: 'docker' })
    expect(report.runs).toBe(40)
    expect(report.notResults).toBe(0)
    expect(report.unanswered).toBe(0)
    expect(report.childrenAfterClose).toBe(0)
  }, 600_000)
})

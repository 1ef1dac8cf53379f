// The seam suite fails when a backend breaks a promise: one deliberate break per promise
// (test/contract/seam/breakers.ts), each caught by that promise's check. Docker's own: breakers-docker.test.ts.
import { describe, expect, it } from 'vitest'
import { inProcessBackend, isolateBackend } from './backends.js'
import { breakerSuite } from './seam/break-suite.js'
import { BREAKERS } from './seam/breakers.js'
import { CASES } from './seam/cases.js'

describe('the breakers', () => {
  it('break every promise of the seam once, and name only real promises', () => {
    expect(Object.keys(BREAKERS).sort()).toEqual(CASES.map((c) => c.name).sort())
  })
})

breakerSuite('in-process', inProcessBackend)
breakerSuite('isolate', isolateBackend)

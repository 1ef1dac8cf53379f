// The seam suite fails when a backend breaks a promise: one deliberate break per promise
// (test/contract/seam/breakers.ts), each caught by that promise's check. Docker's own: breakers-docker.test.ts.
import { describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { createInProcessSandbox } from './in-process/index.js'
import { breakerSuite } from './seam/break-suite.js'
import { BREAKERS } from './seam/breakers.js'
import { CASES } from './seam/cases.js'

describe('the breakers', () => {
  it('break every promise of the seam once, and name only real promises', () => {
    expect(Object.keys(BREAKERS).sort()).toEqual(CASES.map((c) => c.name).sort())
  })
})

breakerSuite('in-process', {
  make: (root) => createInProcessSandbox({ workspace: { root, readOnly: ['locked'] } }),
  unstartable: () => createInProcessSandbox({ unstartable: 'the in-process sandbox was told it cannot start' }),
  capabilities: createInProcessSandbox().capabilities,
})
breakerSuite('isolate', {
  make: () => createIsolateSandbox(),
  unstartable: () => createIsolateSandbox({ childEntry: '/nonexistent/codeact/child.js' }),
  capabilities: { nodeModules: false, effectsOnlyThroughHost: true, programWrites: false, sessions: true, stagesItself: false },
})

// The seam suite's breaks that need Docker (staging is Docker's own): each caught by its promise's check.
import { describe } from 'vitest'
import { dockerRuntimeCases } from '../docker/engine.js'
import { dockerBackend } from './backends.js'
import { breakerSuite } from './seam/break-suite.js'

const runc = dockerRuntimeCases.find((r) => r.name === 'runc')
describe.skipIf(runc?.skip !== undefined)('broken docker backend (runc)', () => {
  if (runc) breakerSuite('docker', dockerBackend(runc))
})

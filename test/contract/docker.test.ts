import { describe } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { sandboxContract } from './contract.js'

// Skipped, with the reason printed, only where no Docker engine answers; CI counts that skip as a failure.
describe.skipIf(!dockerEngine.available)('docker backend', () => {
  sandboxContract('docker', { runtime: { sandbox: 'docker' }, setup: ensureImage })
})

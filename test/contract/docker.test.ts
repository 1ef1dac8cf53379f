import { execFileSync } from 'node:child_process'
import { describe } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { sandboxContract } from './contract.js'

// Skipped, with the reason printed, only where no Docker engine answers; CI counts that skip as a failure.
describe.skipIf(!dockerEngine.available)('docker backend', () => {
  sandboxContract('docker', {
    runtime: { sandbox: 'docker' },
    setup: ensureImage,
    // The container runs as nobody (65534) unless the workspace has a non-root owner: give it the workspace,
    // as a user's own files would be theirs.
    prepareWorkspace: (dir) => execFileSync('chown', ['-R', '65534:65534', dir]),
  })
})

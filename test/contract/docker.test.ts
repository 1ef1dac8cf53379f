import { describe } from 'vitest'
import { dockerRuntimeCases } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { chownToNobody, dockerBackend } from './backends.js'
import { sandboxContract } from './contract.js'
import { seamContract } from './seam/suite.js'
import { sessionContract } from './session-contract.js'

// Once per OCI runtime: runc, and gVisor (`runsc`) where the engine has it. Skipped, with the reason
// printed, only where no engine (or no runsc) answers; CI counts that skip as a failure.
for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker backend (${runtime.name})`, () => {
    seamContract(`docker-${runtime.name}`, dockerBackend(runtime))
    sandboxContract(`docker-${runtime.name}`, {
      runtime: { sandbox: 'docker', docker: { ...runtime.option } },
      setup: ensureImage,
      prepareWorkspace: chownToNobody,
    })
    // Sessions: one container per session, kept between its runs (sandbox/docker/sessions.ts).
    sessionContract(`docker-${runtime.name}`, { runtime: { sandbox: 'docker', docker: { ...runtime.option } }, setup: ensureImage })
  })
}

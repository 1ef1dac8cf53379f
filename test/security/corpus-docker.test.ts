import { describe } from 'vitest'
import { dockerRuntimeCases } from '../docker/engine.js'
import { runCorpus } from './corpus.js'

// The lead's test script sets CODEACT_DOCKER=1 when an engine answers (and fails CI if this is skipped).
// Once per OCI runtime: runc and gVisor (`runsc`).
for (const runtime of dockerRuntimeCases) {
  describe.skipIf(process.env['CODEACT_DOCKER'] !== '1' || runtime.skip !== undefined)(`docker backend (${runtime.name})`, () => {
    runCorpus('docker', undefined, { docker: runtime.option, label: `docker, ${runtime.name}` })
  })
}

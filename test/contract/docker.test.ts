import { execFileSync } from 'node:child_process'
import { describe } from 'vitest'
import { createDockerSandbox } from '../../sandbox/docker/index.js'
import { dockerRuntimeCases } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { sandboxContract } from './contract.js'
import { seamContract } from './seam/suite.js'
import { sessionContract } from './session-contract.js'

// Once per OCI runtime: runc, and gVisor (`runsc`) where the engine has it. Skipped, with the reason
// printed, only where no engine (or no runsc) answers; CI counts that skip as a failure.
for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker backend (${runtime.name})`, () => {
    seamContract(`docker-${runtime.name}`, {
      make: (root) => createDockerSandbox({ ...runtime.option, poolSize: 1, workspace: { root, readOnly: ['locked'] } }),
      // An engine that is not there: no container can start.
      unstartable: () => createDockerSandbox({ ...runtime.option, engines: [{ socketPath: '/nonexistent/docker.sock' }] }),
      // As `stages30` declares it on the seam.
      capabilities: { nodeModules: true, effectsOnlyThroughHost: false, programWrites: true, sessions: true, stagesItself: true },
      setup: ensureImage,
      // The container runs as the workspace's owner (this process is root): give it the workspace as a
      // user's own files would be theirs, and check the non-root path at the same time.
      prepareWorkspace: (dir) => execFileSync('chown', ['-R', '65534:65534', dir]),
      skip: {
        'JS the backend cannot parse is a compile error':
          'bug: the runner answers JS that does not parse as `runtime` (SyntaxError); the isolate answers `compile`',
      },
    })
    sandboxContract(`docker-${runtime.name}`, {
      runtime: { sandbox: 'docker', docker: { ...runtime.option } },
      setup: ensureImage,
      prepareWorkspace: (dir) => execFileSync('chown', ['-R', '65534:65534', dir]),
    })
    // Sessions: one container per session, kept between its runs (sandbox/docker/sessions.ts).
    sessionContract(`docker-${runtime.name}`, { runtime: { sandbox: 'docker', docker: { ...runtime.option } }, setup: ensureImage })
  })
}

/**
 * The seam suite's options for each backend, less its skip list: how to make it over the suite's workspace,
 * how to make it unable to start, and what it declares. A backend's test file adds its skip list; the
 * breaker tests wrap the same backends.
 */
import { execFileSync } from 'node:child_process'
import { createDockerSandbox } from '../../sandbox/docker/index.js'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { DockerRuntimeCase } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { createInProcessSandbox } from './in-process/index.js'
import type { SeamOptions } from './seam/suite.js'

export type Backend = Omit<SeamOptions, 'skip'>

export const inProcessBackend: Backend = {
  make: (root) => createInProcessSandbox({ workspace: { root, readOnly: ['locked'] } }),
  unstartable: () => createInProcessSandbox({ unstartable: 'the in-process sandbox was told it cannot start' }),
  capabilities: createInProcessSandbox().capabilities,
}

export const isolateBackend: Backend = {
  make: () => createIsolateSandbox(),
  // A child entry that is not there: the supervised child cannot spawn.
  unstartable: () => createIsolateSandbox({ childEntry: '/nonexistent/codeact/child.js' }),
  // As `stages30` declares it on the seam.
  capabilities: { nodeModules: false, effectsOnlyThroughHost: true, programWrites: false, sessions: true, stagesItself: false },
}

export function dockerBackend(runtime: DockerRuntimeCase): Backend {
  return {
    make: (root) => createDockerSandbox({ ...runtime.option, poolSize: 1, workspace: { root, readOnly: ['locked'] } }),
    // An engine that is not there: no container can start.
    unstartable: () => createDockerSandbox({ ...runtime.option, engine: { socketPath: '/nonexistent/docker.sock' } }),
    // As `stages30` declares it on the seam.
    capabilities: { nodeModules: true, effectsOnlyThroughHost: false, programWrites: true, sessions: true, stagesItself: true },
    setup: ensureImage,
    // The container runs as the workspace's owner (this process is root): the workspace is a user's own.
    prepareWorkspace: (dir) => chownToNobody(dir),
  }
}

/** The workspace as an unprivileged user's own files (uid 65534), so the non-root path is the one tested. */
export function chownToNobody(dir: string): void {
  execFileSync('chown', ['-R', '65534:65534', dir])
}

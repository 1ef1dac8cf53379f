/**
 * The Docker backend (`createDockerSandbox`): programs run in single-use, hardened containers of the
 * `codeact-runner` image (images/, `make image`), from a warm pool.
 */
export { createDockerSandbox, type DockerSandbox } from './sandbox.js'
export { reapOrphans } from './reaper.js'
export { DEFAULT_IMAGE, type DockerSandboxOptions } from './options.js'

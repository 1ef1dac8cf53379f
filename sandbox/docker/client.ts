/**
 * The Docker client (dockerode) is an optional peer dependency: only `sandbox: 'docker'` needs it, and it
 * brings ~20 packages with two native builds of their own (ssh2, cpu-features). Asked for before the
 * backend's modules load, so its absence is one line naming what to install.
 */
import { createRequire } from 'node:module'
import { addCommand, detectPackageManager } from '../package-manager.js'

export function dockerClientMissing(): string | undefined {
  try {
    createRequire(import.meta.url).resolve('dockerode')
    return undefined
  } catch {
    return `sandbox 'docker' needs the Docker client: run \`${addCommand(detectPackageManager(), 'dockerode@^5')}\``
  }
}

/**
 * The `--docker-*` flags: each one a Docker backend option (sandbox/docker/options.ts), same meaning, so the
 * command line reaches everything an embedder can pass as `docker: { … }`.
 */
import type { ParseArgsConfig } from 'node:util'
import type { DockerSandboxOptions } from '../sandbox/docker/options.js'
import type { FlagValues } from './flag-values.js'

export const DOCKER_FLAGS = {
  'docker-image': { type: 'string' },
  'docker-user': { type: 'string' },
  'docker-runtime': { type: 'string' },
  'docker-pool-size': { type: 'string' },
  'docker-memory': { type: 'string' },
  'docker-cpus': { type: 'string' },
  'docker-pids-limit': { type: 'string' },
  'docker-tmp-size': { type: 'string' },
  'docker-network': { type: 'boolean' },
  'docker-start-timeout': { type: 'string' },
} satisfies ParseArgsConfig['options']

export type DockerFlagValues = FlagValues<typeof DOCKER_FLAGS>

/** Thrown as the CLI's usage error (exit status 2) by the caller's constructor. */
type UsageErrorCtor = new (message: string) => Error

/** The Docker options the flags ask for; undefined when no `--docker-*` flag was given. */
export function dockerOptionsFromFlags(
  values: DockerFlagValues,
  sandbox: string | undefined,
  UsageError: UsageErrorCtor,
): DockerSandboxOptions | undefined {
  const given = (Object.keys(values) as Array<keyof DockerFlagValues>).filter((k) => k.startsWith('docker-') && values[k] !== undefined)
  if (given.length === 0) return undefined
  if (sandbox !== 'docker') throw new UsageError(`--${given[0]} needs --sandbox docker`)
  const number = (flag: keyof DockerFlagValues, min: number, integer: boolean): number | undefined => {
    const text = values[flag]
    if (text === undefined || typeof text !== 'string') return undefined
    const n = Number(text)
    if (text.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new UsageError(`--${flag} needs ${integer ? 'a whole number' : 'a number'} of at least ${min}, got "${text}"`)
    }
    return n
  }
  const o: DockerSandboxOptions = {}
  const image = values['docker-image']
  if (image !== undefined) {
    if (!/^[\w][\w.\-/:@]*$/.test(image)) throw new UsageError(`--docker-image: "${image}" is not an image name`)
    o.image = image
  }
  const user = values['docker-user']
  if (user !== undefined) {
    if (!/^\d+(:\d+)?$/.test(user)) throw new UsageError(`--docker-user needs UID or UID:GID (numbers), got "${user}"`)
    o.user = user
  }
  const runtime = values['docker-runtime']
  if (runtime !== undefined) {
    if (!/^[\w][\w.-]*$/.test(runtime)) throw new UsageError(`--docker-runtime: "${runtime}" is not a runtime name (e.g. runc, runsc)`)
    o.runtime = runtime
  }
  const poolSize = number('docker-pool-size', 0, true)
  if (poolSize !== undefined) o.poolSize = poolSize
  const memoryMb = number('docker-memory', 16, false)
  if (memoryMb !== undefined) o.memoryMb = memoryMb
  const cpus = number('docker-cpus', 0.01, false)
  if (cpus !== undefined) o.cpus = cpus
  const pidsLimit = number('docker-pids-limit', 16, true)
  if (pidsLimit !== undefined) o.pidsLimit = pidsLimit
  const tmpSizeMb = number('docker-tmp-size', 1, true)
  if (tmpSizeMb !== undefined) o.tmpSizeMb = tmpSizeMb
  const startTimeoutMs = number('docker-start-timeout', 1, true)
  if (startTimeoutMs !== undefined) o.startTimeoutMs = startTimeoutMs
  if (values['docker-network']) o.network = true
  return o
}

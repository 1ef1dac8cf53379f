/**
 * A one-node Docker swarm for a test, left as found: `docker swarm init` when the engine is in no swarm
 * (and `leave --force` plus the removal of the docker_gwbridge network it made, in teardown), the engine's
 * own swarm when it is a manager already. The images a stack runs are built here, offline: the server
 * image (images/build-server.sh) and PostgreSQL and HAProxy from this machine's binaries
 * (deploy/swarm/offline/build.sh), all tagged with the caller's name.
 */
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { REPO } from './paths.js'

const exec = promisify(execFile)

export async function docker(args: string[], env: NodeJS.ProcessEnv = process.env, timeout = 180_000): Promise<string> {
  const { stdout } = await exec('docker', args, { env, timeout, maxBuffer: 16 << 20 })
  return stdout.trim()
}

/** Where the engine's swarm is; undefined when no engine answers. */
function swarmState(): string | undefined {
  try {
    return execFileSync('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}/{{.Swarm.ControlAvailable}}'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return undefined
  }
}

const inCI = process.env['CI'] === 'true' || process.env['CI'] === '1'

function probe(): { available: boolean; reason?: string } {
  const state = swarmState()
  if (state === undefined) return { available: false, reason: 'no Docker engine answers (docker info failed)' }
  if (state.startsWith('inactive/') || state === 'active/true') return { available: true }
  return { available: false, reason: `the engine is in a swarm state a test must not change (${state}): not inactive, not a manager` }
}

export const swarm = probe()
/** `describe.skipIf(swarmSkip)`: outside CI only; in CI a missing engine or swarm is a failure. */
export const swarmSkip = !swarm.available && !inCI
if (!swarm.available) console.warn(`[swarm tests ${inCI ? 'FAIL in CI' : 'skipped'}] ${swarm.reason}`)

/** Puts the engine in swarm mode if it is not; the returned function puts it back. */
export async function joinSwarm(): Promise<() => Promise<void>> {
  if (swarmState()?.startsWith('active/')) return async () => {}
  const hadBridge = (await docker(['network', 'ls', '--format', '{{.Name}}'])).split('\n').includes('docker_gwbridge')
  await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1'])
  return async () => {
    await docker(['swarm', 'leave', '--force'])
    if (!hadBridge) await docker(['network', 'rm', 'docker_gwbridge']).catch(() => undefined)
  }
}

export interface StackImages {
  server: string
  postgres: string
  haproxy: string
}

/** Builds the three images a stack of deploy/swarm/compose.yaml runs, offline, tagged `tag`. */
export async function buildImages(tag: string): Promise<StackImages> {
  const images = { server: `codeact-server:${tag}`, postgres: `codeact-postgres:${tag}`, haproxy: `codeact-haproxy:${tag}` }
  await exec('sh', [join(REPO, 'images', 'build-server.sh'), '--tag', images.server], { timeout: 600_000 })
  await exec('sh', [join(REPO, 'deploy', 'swarm', 'offline', 'build.sh'), '--tag', tag], { timeout: 600_000 })
  return images
}

/** Removes a stack and waits until its containers and networks are gone, then its volumes. */
export async function removeStack(name: string): Promise<void> {
  await docker(['stack', 'rm', name]).catch(() => undefined)
  const filter = ['--filter', `label=com.docker.stack.namespace=${name}`, '--format', '{{.ID}}']
  for (let i = 0; i < 120; i++) {
    const left = (await docker(['ps', '-a', ...filter])) + (await docker(['network', 'ls', ...filter]))
    if (!left) break
    await new Promise((r) => setTimeout(r, 500))
  }
  const volumes = (await docker(['volume', 'ls', '-q', ...filter.slice(0, 2)])).split('\n').filter(Boolean)
  if (volumes.length) await docker(['volume', 'rm', '-f', ...volumes])
}

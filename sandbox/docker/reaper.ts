/**
 * The reaper: removes codeact containers whose owner process is gone (a host that crashed or was killed
 * before `close()`). A container of a live process, or of another machine, is never touched.
 */
import type Docker from 'dockerode'
import os from 'node:os'
import { connectEngines, LABEL, OWNER_LABEL } from './engine.js'
import { removeContainer } from './spawn.js'

export interface ReapResult {
  /** Ids of the containers removed. */
  removed: string[]
  /** Engines that could not be asked, with why. */
  errors: string[]
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // alive, someone else's
  }
}

/** Is the `hostname:pid` owner of a container a process of this machine that no longer exists? */
export function isOrphan(owner: string | undefined): boolean {
  if (!owner) return false
  const at = owner.lastIndexOf(':')
  const host = owner.slice(0, at)
  const pid = Number(owner.slice(at + 1))
  if (at < 0 || host !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return false
  return pid !== process.pid && !processAlive(pid)
}

export async function reapOrphans(options: { engines?: Docker.DockerOptions[] } = {}): Promise<ReapResult> {
  const result: ReapResult = { removed: [], errors: [] }
  const connected = connectEngines(options.engines)
  if (!connected.ok) return { removed: [], errors: [connected.message] }
  for (const engine of connected.engines) {
    let list: Docker.ContainerInfo[]
    try {
      list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL}=1`] } })
    } catch (e) {
      result.errors.push(`${engine.label}: ${(e as Error).message}`)
      continue
    }
    const orphans = list.filter((info) => isOrphan(info.Labels[OWNER_LABEL]))
    const gone = await Promise.all(orphans.map((info) => removeContainer(engine.docker.getContainer(info.Id))))
    orphans.forEach((info, i) => {
      if (gone[i]) result.removed.push(info.Id)
      else result.errors.push(`${engine.label}: could not remove ${info.Id}`)
    })
  }
  return result
}

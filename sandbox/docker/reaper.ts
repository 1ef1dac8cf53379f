/**
 * The reaper: removes codeact containers whose owner process is gone (a host that crashed or was killed
 * before `close()`). A container of a live process — or of one this process cannot see (another machine,
 * another boot, another pid namespace) — is never touched. Every sandbox's first `start()` reaps.
 */
import type Docker from 'dockerode'
import { connectEngine, INSTANCE_LABEL, LABEL, type Engine } from './engine.js'
import { ownerGone } from './owner.js'
import { removeContainer } from './spawn.js'

export interface ReapResult {
  /** Ids of the containers removed. */
  removed: string[]
  /** Why the engine could not be asked, or a container not removed. */
  errors: string[]
}

/** `engine`: the Docker connection options (default: DOCKER_HOST or the local socket). */
export async function reapOrphans(options: { engine?: Docker.DockerOptions } = {}): Promise<ReapResult> {
  const result: ReapResult = { removed: [], errors: [] }
  const connected = connectEngine(options.engine)
  if (!connected.ok) return { removed: [], errors: [connected.message] }
  const { engine } = connected
  let list: Docker.ContainerInfo[]
  try {
    list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL}=1`] } })
  } catch (e) {
    return { removed: [], errors: [`${engine.label}: ${(e as Error).message}`] }
  }
  // Only containers whose owner is certainly gone (owner.ts).
  const orphans = list.filter((info) => ownerGone(info.Labels))
  const gone = await Promise.all(orphans.map((info) => removeContainer(engine.docker.getContainer(info.Id))))
  orphans.forEach((info, i) => {
    if (gone[i]) result.removed.push(info.Id)
    else result.errors.push(`${engine.label}: could not remove ${info.Id}`)
  })
  return result
}

/**
 * Every container one sandbox instance made, by its instance label: at its close. A create whose answer the
 * engine never sent (the connection cut mid-request) made a container nobody holds a handle to; only its
 * label finds it. An engine that does not answer within `timeoutMs` is left to the reaper.
 */
export async function removeInstanceContainers(engine: Engine | undefined, instanceId: string, timeoutMs = 10_000): Promise<void> {
  if (!engine) return
  const sweep = async (): Promise<void> => {
    const list = await engine.docker.listContainers({ all: true, filters: { label: [`${INSTANCE_LABEL}=${instanceId}`] } })
    await Promise.all(list.map((info) => removeContainer(engine.docker.getContainer(info.Id))))
  }
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
  await Promise.race([sweep().catch(() => undefined), late])
  clearTimeout(timer)
}

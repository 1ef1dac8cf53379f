/**
 * One ready container: create -> attach -> start -> the runner's `ready` line -> the prelude sent. Anything that fails on the
 * way removes what was made and comes back as the text of a `sandbox_unavailable` outcome.
 */
import type Docker from 'dockerode'
import { PRELUDE_SOURCE } from '../../sdk/prelude.js'
import { RunnerChannel } from './channel.js'
import { describeEngineError, type Engine } from './engine.js'

export interface ReadyContainer {
  engine: Engine
  container: Docker.Container
  channel: RunnerChannel
  memoryMb: number
}

export type Spawned = { ok: true; ready: ReadyContainer } | { ok: false; message: string }

export async function spawnContainer(
  engine: Engine,
  spec: Docker.ContainerCreateOptions,
  memoryMb: number,
  startTimeoutMs: number,
  track: (removal: Promise<void>) => void,
): Promise<Spawned> {
  const image = spec.Image ?? ''
  let container: Docker.Container
  try {
    container = await engine.docker.createContainer(spec)
  } catch (e) {
    return { ok: false, message: describeEngineError(e, 'creating a container', engine, image) }
  }
  let channel: RunnerChannel | undefined
  const fail = (message: string): Spawned => {
    channel?.destroy()
    track(removeContainer(container))
    return { ok: false, message }
  }
  try {
    channel = await RunnerChannel.attach(container)
    await container.start()
  } catch (e) {
    return fail(describeEngineError(e, 'starting a container', engine, image))
  }
  const ch = channel
  const ready = await new Promise<true | string>((resolve) => {
    const timer = setTimeout(() => resolve(`the runner did not start within ${startTimeoutMs} ms`), startTimeoutMs)
    const off = ch.onClose(() => {
      clearTimeout(timer)
      const tail = ch.stderrTail().trim().split('\n').slice(-3).join(' | ')
      resolve(`the runner exited before it was ready${tail ? ': ' + tail.slice(0, 500) : ''} (is "${image}" a codeact runner image? rebuild it with \`make image\`)`)
    })
    ch.handler = (msg) => {
      if (msg.type !== 'ready') return
      clearTimeout(timer)
      off()
      resolve(true)
    }
  })
  ch.handler = undefined
  if (ready !== true) return fail(ready)
  ch.send({ type: 'prepare', prelude: PRELUDE_SOURCE })
  return { ok: true, ready: { engine, container, channel: ch, memoryMb } }
}

/** Kill and remove; a container that is already gone is fine. Never rejects. */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true })
  } catch (e) {
    const status = (e as { statusCode?: unknown }).statusCode
    if (status === 404) return
    // 409: removal already in progress; retry once after it settles.
    await new Promise((r) => setTimeout(r, 200))
    await container.remove({ force: true }).catch(() => undefined)
  }
}

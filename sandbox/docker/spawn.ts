/**
 * One ready container: create -> attach -> start -> the runner's `ready` line -> the prelude sent. Anything that fails on the
 * way removes what was made and comes back as the text of a `sandbox_unavailable` outcome.
 */
import type Docker from 'dockerode'
import { guestSource } from '../guest-source.js'
import { RunnerChannel } from './channel.js'
import { describeEngineError, type Engine } from './engine.js'
import { buildImageCommand } from './build-command.js'

export interface ReadyContainer {
  engine: Engine
  container: Docker.Container
  channel: RunnerChannel
  memoryMb: number
}

const HELLO_INTERVAL_MS = 500

/** `busy`: the runner was slow to say ready (a loaded machine), not broken; worth one more try. */
export type Spawned = { ok: true; ready: ReadyContainer } | { ok: false; message: string; busy?: boolean }

export async function spawnContainer(
  engine: Engine,
  spec: Docker.ContainerCreateOptions,
  memoryMb: number,
  startTimeoutMs: number,
  track: (removal: Promise<boolean>) => void,
): Promise<Spawned> {
  const image = spec.Image ?? ''
  let container: Docker.Container
  try {
    container = await engine.docker.createContainer(spec)
  } catch (e) {
    return { ok: false, message: describeEngineError(e, 'creating a container', engine, image) }
  }
  let channel: RunnerChannel | undefined
  const fail = (message: string, busy = false): Spawned => {
    channel?.destroy()
    track(removeContainer(container))
    return { ok: false, message, ...(busy ? { busy } : {}) }
  }
  try {
    channel = await RunnerChannel.attach(container)
    await container.start()
  } catch (e) {
    return fail(describeEngineError(e, 'starting a container', engine, image))
  }
  const ch = channel
  const slow = `the runner did not start within ${startTimeoutMs} ms`
  const ready = await new Promise<true | string>((resolve) => {
    const timer = setTimeout(() => resolve(slow), startTimeoutMs)
    // The first `ready` can be lost when the engine connects the attach stream late: ask until one comes.
    const hello = setInterval(() => ch.send({ type: 'hello' }), HELLO_INTERVAL_MS)
    const off = ch.onClose(() => {
      clearTimeout(timer)
      clearInterval(hello)
      const tail = ch.stderrTail().trim().split('\n').slice(-3).join(' | ')
      resolve(
        `the runner exited before it was ready${tail ? ': ' + tail.slice(0, 500) : ''} (is "${image}" a codeact runner image? rebuild it with \`${buildImageCommand(image)}\`)`,
      )
    })
    ch.handler = (msg) => {
      if (msg.type !== 'ready') return
      clearTimeout(timer)
      clearInterval(hello)
      off()
      resolve(true)
    }
  })
  ch.handler = undefined
  if (ready !== true) return fail(ready, ready === slow)
  let guest: string
  try {
    guest = guestSource('container')
  } catch (e) {
    return fail((e as Error).message)
  }
  // The runner's realm evaluates it (guest/bridge/container.ts) while the container waits in the pool.
  ch.send({ type: 'prepare', prelude: guest })
  return { ok: true, ready: { engine, container, channel: ch, memoryMb } }
}

/**
 * Kill and remove, with the container's anonymous volumes (a staged run's overlay, sandbox/docker/staged.ts;
 * `v` never touches a named volume or a bind). A container that is already gone is fine. Resolves whether
 * it is gone; never rejects.
 */
export async function removeContainer(container: Docker.Container, attempts = 5): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      await container.remove({ force: true, v: true })
      return true
    } catch (e) {
      if ((e as { statusCode?: unknown }).statusCode === 404) return true
      // 409 (a removal already in progress) or a busy engine: wait and ask again.
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)))
    }
  }
  return false
}

// Large tool results cross into a container as one line of JSON text. A program in the default 128 MB
// container must get them whole, under runc and under gVisor (whose sentry shares the container's memory),
// and without a cost that grows with the square of the size (the runner once re-flattened its whole
// buffer per 64 KiB chunk: an 8 MiB result took ~0.4 s and ~0.5 GB of garbage, and gVisor OOM-killed some).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import type { SandboxHost } from '../../sandbox/types.js'
import { dockerRuntimeCases } from './engine.js'
import { ensureImage, never, ownContainers, request } from './helpers.js'

const MiB = 1024 * 1024

/** `big({ mb })` answers a string of that many MiB; `piece({ i })` 256 KiB tagged with i. */
function bigHost(): SandboxHost {
  return {
    log: () => {},
    async callTool(name, argsJson) {
      const args = JSON.parse(argsJson) as { mb?: number; i?: number }
      if (name === 'big') return JSON.stringify({ ok: true, value: 'x'.repeat((args.mb ?? 1) * MiB) })
      if (name === 'piece') return JSON.stringify({ ok: true, value: `${args.i}:${'y'.repeat(256 * 1024)}` })
      return JSON.stringify({ ok: false, error: { code: 'ENOSYS', message: name } })
    },
  }
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sandbox (${runtime.name}): large tool results`, () => {
    let sandbox: DockerSandbox
    beforeAll(async () => {
      await ensureImage()
      sandbox = createDockerSandbox({ poolSize: 1, ...runtime.option })
    }, 180_000)
    afterAll(async () => {
      await sandbox.close()
      expect(await ownContainers()).toEqual([])
    })

    // Under gVisor the container's memory also holds the sentry's state for each task, the runner's deadline
    // watchdog (a shell and its sleep) among them: the same result needs a little more room there.
    const roomMb = runtime.name === 'runsc' ? 160 : 128
    it(`a 24 MiB result reaches a program in a ${roomMb} MB container, whole`, async () => {
      const out = await sandbox.run(
        request(`const r = await tools.big({ mb: 24 }); return [r.length, r.slice(0, 3), r.slice(-3)]`, { memoryMb: roomMb }, ['big']),
        bigHost(),
        never(),
      )
      expect(out).toMatchObject({ ok: true, valueJson: JSON.stringify([24 * MiB, 'xxx', 'xxx']) })
    }, 60_000)

    it('three 8 MiB results one after another, then 64 results of 256 KiB at once', async () => {
      const out = await sandbox.run(
        request(
          `let n = 0
          for (let i = 0; i < 3; i++) n += (await tools.big({ mb: 8 })).length
          const pieces = await Promise.all(Array.from({ length: 64 }, (_, i) => tools.piece({ i })))
          return [n, pieces.every((p, i) => p.startsWith(i + ':') && p.length === String(i).length + 1 + 256 * 1024)]`,
          { memoryMb: 128 },
          ['big', 'piece'],
        ),
        bigHost(),
        never(),
      )
      expect(out).toMatchObject({ ok: true, valueJson: JSON.stringify([24 * MiB, true]) })
    }, 60_000)
  })
}

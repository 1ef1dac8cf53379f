// A container ends itself at its run's deadline without help from its host: hosts are SIGKILLed at random
// moments of their life (while the container starts, while the program runs) and, within a grace after the
// run's deadline, no container of theirs is still running — whatever the program does to keep its runner busy.
import Docker from 'dockerode'
import { spawn } from 'node:child_process'
import os from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reapOrphans } from '../../sandbox/docker/index.js'
import { dockerRuntimeCases } from './engine.js'
import { bundleFixture, ensureImage } from './helpers.js'

const DEADLINE_MS = 3000
/**
 * The container kills its runner 1 s past the deadline; the engine then stops it, which on a loaded machine
 * (gVisor tearing its sandbox down) can take a while. A container the old runner left running never stops.
 */
const GRACE_MS = 30_000

/** Programs that keep the runner from ever reading the end of its stdin (the host's going away). */
const STUBBORN = [
  'for (;;) {}',
  'process.stdin.pause(); process.stdin.removeAllListeners(); setInterval(() => {}, 1000); await new Promise(() => {})',
  "require('node:child_process').spawn('/usr/bin/sleep', ['1000'], { detached: true, stdio: 'ignore' }); await tools.echo({}); for (;;) {}",
  'process.kill = () => true; globalThis.setTimeout = () => 0; process.stdin.destroy(); for (;;) {}',
]

/** The host's containers still running, each with when it started (to tell a warm one from the run's). */
async function running(pid: number): Promise<string[]> {
  const docker = new Docker()
  const list = await docker.listContainers({ filters: { label: [`codeact.owner=${os.hostname()}:${pid}`], status: ['running'] } })
  return Promise.all(
    list.map(async (c) => {
      const started = await docker
        .getContainer(c.Id)
        .inspect()
        .then(
          (i) => i.State.StartedAt,
          () => '?',
        )
      return `${c.Id.slice(0, 12)} started ${started}`
    }),
  )
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sandbox: a container ends itself at its deadline (${runtime.name})`, () => {
    let bundle: string
    beforeAll(async () => {
      await ensureImage()
      bundle = await bundleFixture('deadline-host')
    })
    afterAll(async () => {
      await reapOrphans() // the killed hosts' stopped containers
    })

    it(`${2 * STUBBORN.length} hosts SIGKILLed at random moments leave no container running past deadline + grace`, async () => {
      const survivors: string[] = []
      const stoppedAfter: number[] = []
      for (let i = 0; i < 2 * STUBBORN.length; i++) {
        const body = STUBBORN[i >> 1] ?? ''
        const child = spawn(process.execPath, [bundle, runtime.name, String(DEADLINE_MS), body], { stdio: ['ignore', 'pipe', 'inherit'] })
        const spawnedAt = Date.now()
        let startedAt: number | undefined
        child.stdout.setEncoding('utf8')
        child.stdout.on('data', (d: string) => {
          if (d.includes('started')) startedAt ??= Date.now()
        })
        const exited = new Promise((resolve) => child.once('exit', resolve))
        // Each program twice: killed while the host starts its container, and during the run (before its deadline).
        const during = i % 2 === 1
        if (during) {
          while (startedAt === undefined && Date.now() - spawnedAt < 60_000) await new Promise((r) => setTimeout(r, 20))
          await new Promise((r) => setTimeout(r, 300 + Math.random() * (DEADLINE_MS - 800)))
        } else {
          await new Promise((r) => setTimeout(r, Math.random() * 1500))
        }
        child.kill('SIGKILL')
        const killedAt = Date.now()
        await exited
        const deadlineAt = (startedAt ?? Date.now()) + DEADLINE_MS
        await new Promise((r) => setTimeout(r, Math.max(0, deadlineAt + 1000 - Date.now())))
        let left = await running(child.pid ?? -1)
        while (left.length > 0 && Date.now() < deadlineAt + GRACE_MS) {
          await new Promise((r) => setTimeout(r, 250))
          left = await running(child.pid ?? -1)
        }
        stoppedAfter.push(Date.now() - deadlineAt)
        if (left.length) {
          const at = (t: number | undefined) => (t === undefined ? 'never' : new Date(t).toISOString())
          const times = `host started ${at(spawnedAt)}, said started ${at(startedAt)}, killed ${at(killedAt)}`
          survivors.push(`kill ${i + 1} (${during ? 'during the run' : 'at start'}, program: ${body}; ${times}): ${left.join(', ')}`)
        }
      }
      console.info(`[deadline ${runtime.name}] none running, ms after the deadline: ${stoppedAfter.join(', ')}`)
      expect(survivors).toEqual([])
    }, 600_000)
  })
}

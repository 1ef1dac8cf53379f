// A host that dies without close() leaves containers behind; reapOrphans() removes those (owner process
// gone) and nothing of a live host.
import Docker from 'dockerode'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, DEFAULT_IMAGE, reapOrphans } from '../../sandbox/docker/index.js'
import { BOOT_LABEL, ownerLabels, PIDNS_LABEL, STARTED_LABEL } from '../../sandbox/docker/owner.js'
import { dockerEngine } from './engine.js'
import { bundleFixture, ensureImage, ownContainers } from './helpers.js'

async function containersOf(pid: number): Promise<string[]> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`codeact.owner=${os.hostname()}:${pid}`] } })
  return list.map((c) => c.Id)
}

describe.skipIf(!dockerEngine.available)('docker sandbox: reaper', () => {
  let bundle: string
  beforeAll(async () => {
    await ensureImage()
    bundle = await bundleFixture('crashing-host')
  })
  afterAll(async () => {
    expect(await ownContainers()).toEqual([])
  })

  it("removes the containers of a killed host and keeps a live host's", async () => {
    const child = spawn(process.execPath, [bundle], { stdio: ['ignore', 'pipe', 'inherit'] })
    const said = await new Promise<string>((resolve) => {
      child.stdout.setEncoding('utf8')
      child.stdout.once('data', (d: string) => resolve(d.trim()))
      child.once('exit', () => resolve('exited'))
    })
    expect(said).toBe('warm')
    const pid = child.pid ?? -1
    const left = await containersOf(pid)
    expect(left).toHaveLength(2)

    const mine = createDockerSandbox({ poolSize: 1 })
    expect(await mine.warm(1)).toBe(true)
    const live = await ownContainers()
    expect(live).toHaveLength(1)

    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    expect(await containersOf(pid)).toHaveLength(2) // a killed host cannot clean up

    const reaped = await reapOrphans()
    expect(reaped.errors).toEqual([])
    expect(reaped.removed.sort()).toEqual([...left].sort())
    expect(await containersOf(pid)).toEqual([])
    expect(await ownContainers()).toEqual(live)
    await mine.close()
  })

  it("the next start() reaps a killed host's containers, and never one whose owner may be alive", async () => {
    const child = spawn(process.execPath, [bundle], { stdio: ['ignore', 'pipe', 'inherit'] })
    const said = await new Promise<string>((resolve) => {
      child.stdout.setEncoding('utf8')
      child.stdout.once('data', (d: string) => resolve(d.trim()))
      child.once('exit', () => resolve('exited'))
    })
    expect(said).toBe('warm')
    const pid = child.pid ?? -1
    const left = await containersOf(pid)
    expect(left).toHaveLength(2)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited

    // Containers whose labels name owners this process cannot rule out, made (not started) with the image.
    const docker = new Docker()
    const mine = ownerLabels()
    const free = await freePid()
    const forged = async (labels: Record<string, string>) =>
      (await docker.createContainer({ Image: DEFAULT_IMAGE, Labels: { codeact: '1', ...labels } })).id
    const kept = [
      // the same pid and hostname, in another pid namespace (another container on this engine): may be alive
      await forged({ ...mine, 'codeact.owner': `${os.hostname()}:${free}`, [PIDNS_LABEL]: 'pid:[1]' }),
      // another boot of a machine with this hostname: may be alive
      await forged({ ...mine, 'codeact.owner': `${os.hostname()}:${free}`, [BOOT_LABEL]: '00000000-0000-0000-0000-000000000000' }),
      // a live process (this one's parent) with its true start time
      await forged({ ...mine, 'codeact.owner': `${os.hostname()}:${process.ppid}`, [STARTED_LABEL]: startOf(process.ppid) }),
    ]
    // A live pid that started at another time: the pid was reused, the owner is gone.
    const reused = await forged({ ...mine, 'codeact.owner': `${os.hostname()}:${process.ppid}`, [STARTED_LABEL]: '1' })
    try {
      const next = createDockerSandbox({ poolSize: 1 })
      await next.start()
      for (let i = 0; i < 100 && (await containersOf(pid)).length > 0; i++) await new Promise((r) => setTimeout(r, 100))
      expect(await containersOf(pid)).toEqual([])
      const all = (await docker.listContainers({ all: true })).map((c) => c.Id)
      for (const id of kept) expect(all).toContain(id)
      expect(all).not.toContain(reused)
      await next.close()
    } finally {
      await Promise.all(
        [...kept, reused].map((id) =>
          docker
            .getContainer(id)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      )
    }
  }, 180_000)
})

/** A pid no process of this namespace has. */
async function freePid(): Promise<number> {
  for (let pid = 4_000_000; ; pid--) {
    try {
      process.kill(pid, 0)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return pid
    }
  }
}

function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? ''
}

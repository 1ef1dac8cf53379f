// A host that dies without close() leaves containers behind; reapOrphans() removes those (owner process
// gone) and nothing of a live host.
import Docker from 'dockerode'
import { build } from 'esbuild'
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, reapOrphans } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, ownContainers } from './helpers.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const bundle = path.resolve(here, '../../node_modules/.cache/codeact-docker-test/crashing-host.mjs')

async function containersOf(pid: number): Promise<string[]> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`codeact.owner=${os.hostname()}:${pid}`] } })
  return list.map((c) => c.Id)
}

describe.skipIf(!dockerEngine.available)('docker sandbox: reaper', () => {
  beforeAll(async () => {
    await ensureImage()
    await build({ entryPoints: [path.join(here, 'fixtures/crashing-host.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'silent' })
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
})

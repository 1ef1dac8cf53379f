// A full disk under a mounted workspace (a 1 MiB tmpfs, mounted as root): the container's workspace ops
// answer ENOSPC, the workspace vocabulary's own code (not EIO), and the next write that fits still works.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import type { WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { dockerEngine } from './engine.js'
import { ensureImage, ownContainers } from './helpers.js'

const isRoot = process.getuid?.() === 0

describe.skipIf(!dockerEngine.available || !isRoot)('docker sandbox: a full workspace disk', () => {
  let root: string
  let sandbox: DockerSandbox
  beforeAll(async () => {
    await ensureImage()
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-docker-enospc-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,uid=65534,gid=65534', 'tmpfs', root])
    sandbox = createDockerSandbox({ poolSize: 0, workspace: { root } })
  })
  afterAll(async () => {
    await sandbox?.close()
    try {
      execFileSync('umount', [root])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
    expect(await ownContainers()).toEqual([])
  })

  it('a write that does not fit is ENOSPC; after removing it, a small write works', async () => {
    const ops = sandbox.services?.(undefined).workspace as WorkspaceOps
    const big = path.join(root, 'big.txt')
    await expect(ops.writeFile(big, 'x'.repeat(2 * 1024 * 1024))).rejects.toMatchObject({ code: 'ENOSPC' })
    await ops.remove(big, false).catch(() => undefined)
    await ops.writeFile(path.join(root, 'small.txt'), 'fits')
    expect(await ops.readFile(path.join(root, 'small.txt'), 100)).toBe('fits')
  })
})

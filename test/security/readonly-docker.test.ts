/**
 * 12.4 on the Docker backend: `bash` in the container cannot displace a read-only part by renaming or
 * removing one of its parents (each parent is a mount point of its own), and the attempt is a denial.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import type { WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage, ownContainers, tempWorkspace } from '../docker/helpers.js'
import { treeListing } from '../support/tree-hash.js'

const ATTACKS = [
  'mv pkg pkg_moved && mkdir -p pkg/vendor && echo X > pkg/vendor/lib.js',
  'mv pkg pkg_moved; mkdir -p pkg/vendor; echo X > pkg/vendor/lib.js',
  'mv pkg/vendor pkg/vendor_moved',
  'rm -rf pkg/vendor',
  'echo X > pkg/vendor/lib.js',
  'sed -i s/MIT/GPL/ pkg/LICENSE',
  'mv pkg/LICENSE pkg/LICENSE.old',
]

describe.skipIf(!dockerEngine.available)('docker: bash cannot change a read-only path', () => {
  let ws: string
  let sandbox: DockerSandbox
  let ops: WorkspaceOps
  beforeAll(async () => {
    await ensureImage()
    ws = tempWorkspace()
    fs.mkdirSync(path.join(ws, 'pkg/vendor'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'pkg/vendor/lib.js'), 'vendor\n')
    fs.writeFileSync(path.join(ws, 'pkg/LICENSE'), 'MIT\n')
    fs.writeFileSync(path.join(ws, 'pkg/index.js'), 'index\n')
    for (const p of ['pkg', 'pkg/vendor', 'pkg/vendor/lib.js', 'pkg/LICENSE', 'pkg/index.js']) fs.chownSync(path.join(ws, p), 65534, 65534)
    sandbox = createDockerSandbox({ poolSize: 1, workspace: { root: ws, readOnly: ['pkg/vendor', 'pkg/LICENSE'] } })
    ops = sandbox.services?.(undefined).workspace as WorkspaceOps
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(ws, { recursive: true, force: true })
    expect(await ownContainers()).toEqual([])
  })

  for (const command of ATTACKS) {
    test(command, async () => {
      const before = treeListing(ws)
      const r = await ops.exec({ command, cwd: ws, timeoutMs: 10_000, maxOutputBytes: 10_000 })
      expect(r.denied, r.stderr).toBe('EROFS')
      expect(treeListing(ws), r.stderr).toEqual(before)
    })
  }

  test('work in the writable part next to it is not refused', async () => {
    const r = await ops.exec({
      command: 'sed -i s/index/INDEX/ pkg/index.js && mv pkg/index.js pkg/main.js && cat pkg/main.js',
      cwd: ws,
      timeoutMs: 10_000,
      maxOutputBytes: 10_000,
    })
    expect(r).toMatchObject({ exitCode: 0, stdout: 'INDEX\n' })
    expect(r.denied).toBeUndefined()
  })
})

/**
 * One denial table, so one name for one refusal: the same refused operation is observed alike by the host
 * backend (bubblewrap) and the container (its runner), under runc and gVisor — the `bash` tool's `denied`
 * code and the stderr line it quotes, a workspace op's error code, and the denial a program's own child
 * process earns. Moving a read-only part ("Device or resource busy") is the case the container's copy of
 * the table once missed.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { createHostOps } from '../../sandbox/workspace/host-ops.js'
import type { ExecResult, WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { dockerRuntimeCases } from './engine.js'
import { ensureImage, never, ownContainers, request, testHost } from './helpers.js'

const READ_ONLY = ['pkg/vendor', 'pkg/LICENSE']
/** Refused in both backends by the kernel, each in the words of the same shell and coreutils. */
const REFUSED = [
  'echo X > pkg/vendor/lib.js',
  'mv pkg/vendor pkg/vendor_moved',
  'mv pkg pkg_moved',
  'rm -rf pkg/vendor',
  'rm pkg/LICENSE',
  'touch pkg/vendor/new.txt',
]

function seed(ws: string): void {
  fs.mkdirSync(path.join(ws, 'pkg/vendor'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'pkg/vendor/lib.js'), 'vendor\n')
  fs.writeFileSync(path.join(ws, 'pkg/LICENSE'), 'MIT\n')
}

/**
 * What the model is told of a refused command: the code, and the kernel's reason in the line quoted. The
 * whole line too where a coreutils program wrote it; a redirection is the shell's own line, and the host
 * runs bash where the image's /bin/sh is dash.
 */
function denialOf(r: ExecResult, command: string): { denied: string | undefined; reason: string | undefined; line?: string } {
  const reason = r.deniedMessage?.split(': ').pop()
  return { denied: r.denied, reason, ...(command.includes('>') ? {} : { line: r.deniedMessage }) }
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`host and container name a refusal alike (${runtime.name})`, () => {
    let ws: string
    let sandbox: DockerSandbox
    let container: WorkspaceOps
    let host: WorkspaceOps
    beforeAll(async () => {
      await ensureImage()
      // Owned by whoever runs the test: the container runs as the owner, bubblewrap as the caller.
      ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-denials-')))
      seed(ws)
      sandbox = createDockerSandbox({ poolSize: 1, ...runtime.option, workspace: { root: ws, readOnly: READ_ONLY } })
      container = sandbox.services?.(undefined).workspace as WorkspaceOps
      host = createHostOps({ root: ws, readOnly: READ_ONLY.map((p) => path.join(ws, p)), exec: true, network: false })
    })
    afterAll(async () => {
      await sandbox.close()
      fs.rmSync(ws, { recursive: true, force: true })
      expect(await ownContainers()).toEqual([])
    })

    for (const command of REFUSED) {
      test(`bash: ${command}`, async () => {
        const exec = (ops: WorkspaceOps) => ops.exec({ command, cwd: ws, timeoutMs: 10_000, maxOutputBytes: 10_000 })
        const inContainer = denialOf(await exec(container), command)
        const onHost = denialOf(await exec(host), command)
        expect(onHost.denied, 'the host refuses it').toBe('EROFS')
        expect(inContainer).toEqual(onHost)
      })
    }

    test('workspace ops beneath the policy: the same code from both', async () => {
      const codeOf = async (op: () => Promise<unknown>) => {
        try {
          await op()
          return 'done'
        } catch (e) {
          return (e as { code?: string }).code
        }
      }
      for (const ops of [host, container]) {
        expect(await codeOf(() => ops.writeFile(path.join(ws, 'pkg/vendor/lib.js'), 'x'))).toBe('EROFS')
        expect(await codeOf(() => ops.remove(path.join(ws, 'pkg'), true))).toBe('EROFS')
        expect(await codeOf(() => ops.remove(ws, true))).toBe('EPERM')
      }
    })

    test("a program's child moving a read-only part is the denial bash reports on the host", async () => {
      const command = 'mv pkg/vendor pkg/vendor_moved'
      const onHost = await host.exec({ command, cwd: ws, timeoutMs: 10_000, maxOutputBytes: 10_000 })
      const out = await sandbox.run(
        request(`return require('node:child_process').spawnSync('/bin/sh', ['-c', ${JSON.stringify(command)}]).status`),
        testHost(),
        never(),
      )
      expect(out).toMatchObject({ ok: true })
      expect(out.denials).toEqual([{ code: onHost.denied, message: onHost.deniedMessage }])
      expect(fs.existsSync(path.join(ws, 'pkg/vendor/lib.js'))).toBe(true)
    })
  })
}

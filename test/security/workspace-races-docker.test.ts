/**
 * 12.3 on the Docker backend: the workspace ops the container serves walk by descriptor too. While they
 * run, a host process swaps a folder of their path for a symlink to `/` — inside the container that is
 * the container's own file system, outside the workspace. Nothing of it is ever read, listed or written.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import type { WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage, ownContainers, tempWorkspace } from '../docker/helpers.js'

const ROUNDS = 150

describe.skipIf(!dockerEngine.available)('docker workspace ops against a symlink swap', () => {
  let ws: string
  let sandbox: DockerSandbox
  let ops: WorkspaceOps
  let swapper: ChildProcess | undefined

  beforeAll(async () => {
    await ensureImage()
    ws = tempWorkspace()
    // Inside: the same names the container's own / has, with other contents.
    fs.mkdirSync(path.join(ws, 'sub/etc'), { recursive: true })
    fs.mkdirSync(path.join(ws, 'sub/tmp'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'sub/etc/passwd'), 'inside\n')
    fs.writeFileSync(path.join(ws, 'sub/etc/only-inside'), 'inside\n')
    for (const p of ['sub', 'sub/etc', 'sub/tmp', 'sub/etc/passwd', 'sub/etc/only-inside']) fs.chownSync(path.join(ws, p), 65534, 65534)
    sandbox = createDockerSandbox({ poolSize: 1, workspace: { root: ws } })
    ops = sandbox.services?.(undefined).workspace as WorkspaceOps
    await ops.readdir(ws) // the container is up before the race starts
    const code = `
      const fs = require('fs'); const [sub, real] = process.argv.slice(1)
      process.stdout.write('go')
      const dwell = new Int32Array(new SharedArrayBuffer(4)); let n = 0
      for (;;) {
        try { fs.renameSync(sub, real) } catch {
          // The last restore failed (a new folder took the name): move that aside, put the real one back.
          try { fs.renameSync(sub, sub + '.made-' + n++) } catch {}
          try { fs.renameSync(real, sub) } catch {}
          continue
        }
        try { fs.symlinkSync('/', sub) } catch {}
        // An op may have made a new folder in the gap (mkdir -p): move it aside, so the swap goes on.
        try { fs.unlinkSync(sub) } catch { try { fs.renameSync(sub, sub + '.made-' + n++) } catch {} }
        try { fs.renameSync(real, sub) } catch {}
        Atomics.wait(dwell, 0, 0, 0.05)
      }`
    swapper = spawn(process.execPath, ['-e', code, path.join(ws, 'sub'), path.join(ws, 'sub.real')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    await new Promise((resolve) => swapper?.stdout?.once('data', resolve))
  })

  afterAll(async () => {
    swapper?.kill('SIGKILL')
    await sandbox.close()
    fs.rmSync(ws, { recursive: true, force: true })
    expect(await ownContainers()).toEqual([])
  })

  async function race<T>(op: () => Promise<T>): Promise<Array<{ ok: true; value: T } | { ok: false; code: string; message?: string }>> {
    const out: Array<{ ok: true; value: T } | { ok: false; code: string; message?: string }> = []
    const started = Date.now()
    const metBoth = (): boolean => out.some((r) => r.ok) && out.some((r) => !r.ok)
    for (let i = 0; i < ROUNDS || (!metBoth() && i < 2000 && Date.now() - started < 30_000); i++) {
      out.push(
        await op().then(
          (value) => ({ ok: true as const, value }),
          (e: { code?: string; message?: string }) => ({ ok: false as const, code: e.code ?? 'none', message: e.message }),
        ),
      )
    }
    const codes = new Set(out.map((r) => (r.ok ? 'ok' : r.code)))
    for (const c of codes)
      expect(['ok', 'EACCES', 'ENOENT', 'ENOTDIR'], JSON.stringify(out.find((r) => !r.ok && r.code === c))).toContain(c)
    expect(codes.has('ok')).toBe(true)
    expect(codes.size).toBeGreaterThan(1)
    return out
  }

  test("readFile never reads the container's /etc/passwd", async () => {
    for (const r of await race(() => ops.readFile(path.join(ws, 'sub/etc/passwd'), 10_000))) if (r.ok) expect(r.value).toBe('inside\n')
  })

  test("readdir and walk never list the container's /etc", async () => {
    for (const r of await race(() => ops.readdir(path.join(ws, 'sub/etc'))))
      if (r.ok) expect(r.value.map((e) => e.name)).toEqual(['only-inside', 'passwd'])
    for (const r of await race(() => ops.walk(path.join(ws, 'sub'), 1000))) {
      if (r.ok) expect(r.value.entries.map((e) => e.path)).toEqual(['etc', 'etc/only-inside', 'etc/passwd', 'tmp'])
    }
  })

  test("stat never describes the container's own file", async () => {
    for (const r of await race(() => ops.stat(path.join(ws, 'sub/etc/passwd')))) if (r.ok) expect(r.value.size).toBe('inside\n'.length)
  })

  test("writeFile and mkdir never land in the container's /tmp", async () => {
    let i = 0
    await race(() => ops.writeFile(path.join(ws, `sub/tmp/w-${i++}.txt`), 'x'))
    await race(() => ops.mkdir(path.join(ws, `sub/tmp/d-${i++}`)))
    const seen = await ops.exec({ command: 'ls /tmp | grep -c -E "^(w|d)-" || true', cwd: ws, timeoutMs: 10_000, maxOutputBytes: 1000 })
    expect(seen.stdout.trim()).toBe('0')
  })
})

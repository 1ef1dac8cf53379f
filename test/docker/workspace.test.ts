// The mounted workspace: the program's own Node calls (writes land on the host, read-only parts refuse with
// EROFS and the outcome lists it even when caught), and the workspace ops served by the container, during
// a run (the run's own container) and outside any run.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import type { WorkspaceOps } from '../../sandbox/workspace/ops.js'
import { dockerEngine } from './engine.js'
import { ensureImage, never, ownContainers, request, tempWorkspace, testHost } from './helpers.js'

describe.skipIf(!dockerEngine.available)('docker sandbox: workspace', () => {
  let ws: string
  let sandbox: DockerSandbox
  let readonlySandbox: DockerSandbox
  beforeAll(async () => {
    await ensureImage()
    ws = tempWorkspace()
    fs.mkdirSync(path.join(ws, 'docs'))
    fs.writeFileSync(path.join(ws, 'docs', 'a.md'), 'original\n')
    fs.writeFileSync(path.join(ws, 'data.txt'), 'hello data\n')
    for (const f of [path.join(ws, 'docs'), path.join(ws, 'docs', 'a.md'), path.join(ws, 'data.txt')]) fs.chownSync(f, 65534, 65534)
    sandbox = createDockerSandbox({ poolSize: 1, workspace: { root: ws, readOnly: ['docs'] } })
    readonlySandbox = createDockerSandbox({ poolSize: 0, workspace: { root: ws, readOnly: true } })
  })
  afterAll(async () => {
    await sandbox.close()
    await readonlySandbox.close()
    fs.rmSync(ws, { recursive: true, force: true })
    expect(await ownContainers()).toEqual([])
  })

  it('the program works in the workspace with plain node:fs; files land on the host', async () => {
    const out = await sandbox.run(
      request(`
        const fs = require('node:fs')
        fs.writeFileSync('out.txt', fs.readFileSync('data.txt', 'utf8').toUpperCase())
        const { readdir } = await import('node:fs/promises')
        return { cwd: process.cwd(), names: (await readdir('.')).sort() }`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true })
    expect(out.ok && JSON.parse(out.valueJson ?? '')).toEqual({ cwd: '/workspace', names: ['data.txt', 'docs', 'out.txt'] })
    expect(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8')).toBe('HELLO DATA\n')
    expect(out.denials).toBeUndefined()
  })

  it('a write to a read-only part is EROFS, listed as a denial even though the program caught it', async () => {
    const out = await sandbox.run(
      request(`
        const fs = require('node:fs')
        const codes = []
        try { fs.writeFileSync('docs/a.md', 'changed') } catch (e) { codes.push(e.code) }
        await new Promise((resolve) => fs.unlink('docs/a.md', (e) => { codes.push(e && e.code); resolve() }))
        await (await import('node:fs/promises')).rename('docs/a.md', 'docs/b.md').catch((e) => codes.push(e.code))
        return codes`),
      testHost(),
      never(),
    )
    expect(out.ok && JSON.parse(out.valueJson ?? '')).toEqual(['EROFS', 'EROFS', 'EROFS'])
    expect(out.denials?.map((d) => d.code)).toEqual(['EROFS', 'EROFS', 'EROFS'])
    expect(out.denials?.[0]?.message).toBe("EROFS: read-only file system, open 'docs/a.md'")
    expect(fs.readFileSync(path.join(ws, 'docs', 'a.md'), 'utf8')).toBe('original\n')
  })

  it('a read-only workspace refuses every write', async () => {
    const out = await readonlySandbox.run(
      request(`try { require('node:fs').writeFileSync('new.txt', 'x'); return 'written' } catch (e) { return e.code }`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '"EROFS"', denials: [{ code: 'EROFS' }] })
    expect(fs.existsSync(path.join(ws, 'new.txt'))).toBe(false)
  })

  it("a child's refusal is listed from its stderr (a shell writing to a read-only part: EROFS)", async () => {
    const out = await sandbox.run(
      request(`
        const cp = require('node:child_process')
        const sync = cp.spawnSync('/bin/sh', ['-c', 'echo x > docs/from-sync']).status
        const viaExec = await new Promise((resolve) => cp.exec('echo x > docs/from-exec', (e) => resolve(e && e.code)))
        return [sync, viaExec]`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '[2,2]' })
    expect(out.denials).toEqual([
      { code: 'EROFS', message: '/bin/sh: 1: cannot create docs/from-sync: Read-only file system' },
      { code: 'EROFS', message: '/bin/sh: 1: cannot create docs/from-exec: Read-only file system' },
    ])
  })

  it('a child process denied by the kernel is listed too (exec of a noexec file: EACCES)', async () => {
    const out = await sandbox.run(
      request(`
        const fs = require('node:fs')
        fs.copyFileSync('/usr/bin/sleep', '/tmp/s'); fs.chmodSync('/tmp/s', 0o755)
        return await new Promise((resolve) => require('node:child_process').execFile('/tmp/s', ['0'], (e) => resolve(e && e.code)))`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '"EACCES"', denials: [{ code: 'EACCES' }] })
  })

  it("during a run, workspace ops go to that run's own container", async () => {
    const host = testHost()
    const runId = 'ws-ops-run'
    host.callTool = async (_name, _argsJson) => {
      const ops = sandbox.services?.(runId).workspace as WorkspaceOps
      const r = await ops.exec({
        command: 'cat /etc/hostname; id -u 2>/dev/null || echo no-id',
        cwd: ws,
        timeoutMs: 5000,
        maxOutputBytes: 1000,
      })
      return JSON.stringify({ ok: true, value: r.stdout.split('\n')[0] ?? '' })
    }
    const out = await sandbox.run({ ...request(`return [require('node:os').hostname(), await tools.echo({})]`), runId }, host, never())
    const [mine, seenByOp] = out.ok ? (JSON.parse(out.valueJson ?? '') as string[]) : []
    expect(mine).toMatch(/^[0-9a-f]{12}$/)
    expect(seenByOp).toBe(mine)
  })

  it('outside runs, the ops work on the mounted workspace and refuse what the kernel refuses', async () => {
    const ops = sandbox.services?.(undefined).workspace as WorkspaceOps
    await ops.mkdir(path.join(ws, 'made/deep'))
    await ops.writeFile(path.join(ws, 'made/deep/f.txt'), 'héllo')
    expect(fs.readFileSync(path.join(ws, 'made/deep/f.txt'), 'utf8')).toBe('héllo')
    expect(await ops.readFile(path.join(ws, 'made/deep/f.txt'), 100)).toBe('héllo')
    expect(await ops.stat(path.join(ws, 'made/deep/f.txt'))).toMatchObject({ type: 'file', size: 6 })
    expect((await ops.readdir(ws)).map((e) => [e.name, e.type])).toEqual([
      ['data.txt', 'file'],
      ['docs', 'dir'],
      ['made', 'dir'],
      ['out.txt', 'file'],
    ])
    expect(await ops.walk(path.join(ws, 'made'), 10)).toEqual({
      entries: [
        { path: 'deep', type: 'dir' },
        { path: 'deep/f.txt', type: 'file' },
      ],
      truncated: false,
    })
    await expect(ops.readFile(path.join(ws, 'made/deep/f.txt'), 3)).rejects.toMatchObject({ code: 'EFBIG' })
    await expect(ops.readFile(path.join(ws, 'nope.txt'), 100)).rejects.toMatchObject({
      code: 'ENOENT',
      message: 'no such file or folder: nope.txt',
    })
    await expect(ops.writeFile(path.join(ws, 'docs/a.md'), 'x')).rejects.toMatchObject({ code: 'EROFS' })
    await expect(ops.readFile('/etc/passwd', 1000)).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.remove(path.join(ws, 'made'), false)).rejects.toMatchObject({ code: 'ENOTEMPTY' })
    await ops.remove(path.join(ws, 'made'), true)
    expect(fs.existsSync(path.join(ws, 'made'))).toBe(false)
    await expect(ops.remove(ws, true)).rejects.toMatchObject({ code: 'EPERM' })

    const denied = await ops.exec({ command: 'echo x > docs/a.md', cwd: ws, timeoutMs: 5000, maxOutputBytes: 1000 })
    expect(denied).toMatchObject({ exitCode: 2, denied: 'EROFS', timedOut: false })
    expect(denied.deniedMessage).toMatch(/Read-only file system/)
    const slow = await ops.exec({ command: 'sleep 5', cwd: ws, timeoutMs: 300, maxOutputBytes: 1000 })
    expect(slow).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' })
    const big = await ops.exec({ command: 'seq 1 10000', cwd: ws, timeoutMs: 5000, maxOutputBytes: 100 })
    expect(big).toMatchObject({ exitCode: 0, truncated: true })
    expect(big.stdout.length).toBe(100)
  })

  it('a root-owned workspace works with the explicit opt-in user 0:0, still without capabilities', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-rootws-'))
    const rootSandbox = createDockerSandbox({ poolSize: 0, user: '0:0', workspace: { root: closed } })
    try {
      const out = await rootSandbox.run(
        request(`
          const fs = require('node:fs')
          fs.writeFileSync('made-by-root.txt', 'x')
          let rootfs
          try { fs.writeFileSync('/etc/x', 'x') } catch (e) { rootfs = e.code }
          const capEff = /CapEff:\\s*(\\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]
          return { uid: process.getuid(), capEff, rootfs }`),
        testHost(),
        never(),
      )
      expect(out).toMatchObject({ ok: true, valueJson: JSON.stringify({ uid: 0, capEff: '0000000000000000', rootfs: 'EROFS' }) })
      expect(fs.existsSync(path.join(closed, 'made-by-root.txt'))).toBe(true)
    } finally {
      await rootSandbox.close()
      fs.rmSync(closed, { recursive: true, force: true })
    }
  })
})

// Infrastructure failures are `sandbox_unavailable` outcomes that say what to do, never "your program
// failed" and never a stack trace: no engine, no image, a workspace that cannot be mounted, root.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox, type DockerSandboxOptions } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, never, ownContainers, request, tempWorkspace, testHost } from './helpers.js'

// No engine needed: these must hold on a machine without Docker too.
describe('docker sandbox: engine unreachable', () => {
  it('a bogus DOCKER_HOST socket makes runs sandbox_unavailable, and start() still resolves', async () => {
    const saved = process.env.DOCKER_HOST
    process.env.DOCKER_HOST = 'unix:///tmp/codeact-no-such-docker.sock'
    let sandbox: DockerSandbox
    try {
      sandbox = createDockerSandbox()
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = saved
    }
    await sandbox.start()
    const host = testHost()
    const out = await sandbox.run(request(`return await tools.echo({})`), host, never())
    expect(out).toEqual({
      ok: false,
      error: {
        kind: 'sandbox_unavailable',
        code: 'SANDBOX_UNAVAILABLE',
        message:
          'cannot reach the Docker engine at /tmp/codeact-no-such-docker.sock (ENOENT): is dockerd running, and is DOCKER_HOST right?',
      },
      droppedOutputBytes: 0,
    })
    expect(host.calls).toEqual([])
    await sandbox.close()
  })

  it('an engine given as options that refuses connections is the same', async () => {
    const sandbox = createDockerSandbox({ engine: { host: '127.0.0.1', port: 1, protocol: 'http' }, poolSize: 0 })
    const out = await sandbox.run(request(`return 1`), testHost(), never())
    expect(out).toMatchObject({
      ok: false,
      error: {
        kind: 'sandbox_unavailable',
        message: expect.stringMatching(/^cannot reach the Docker engine at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/),
      },
    })
    await sandbox.close()
  })

  it('a malformed DOCKER_HOST is reported, not thrown', async () => {
    const saved = process.env.DOCKER_HOST
    process.env.DOCKER_HOST = 'tcp://[not a host'
    try {
      const sandbox = createDockerSandbox()
      const out = await sandbox.run(request(`return 1`), testHost(), never())
      expect(out).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable', message: expect.stringContaining('DOCKER_HOST') } })
      await sandbox.close()
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = saved
    }
  })
})

describe.skipIf(!dockerEngine.available)('docker sandbox: set-up failures', () => {
  beforeAll(ensureImage)
  afterAll(async () => {
    expect(await ownContainers()).toEqual([])
  })

  for (const poolSize of [0, 2]) {
    it(`a missing image is sandbox_unavailable naming the command that builds it, as a package user runs it (pool ${poolSize})`, async () => {
      const sandbox = createDockerSandbox({ image: 'codeact-no-such-image:nope', poolSize })
      await sandbox.start()
      const out = await sandbox.run(request(`return 1`), testHost(), never())
      await sandbox.close()
      expect(out).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE' } })
      if (!out.ok) {
        const command =
          /^the runner image "codeact-no-such-image:nope" is not on the Docker engine at .*: build it with `sh (\S+) --tag codeact-no-such-image:nope`$/.exec(
            out.error.message,
          )
        expect(command).not.toBeNull()
        // The script this copy ships (a clone's or node_modules/codeact's), by a path that works from anywhere.
        expect(command![1]).toBe(path.resolve('images/build.sh'))
        expect(out.error.message).not.toContain('make image')
        expect(out.error.message).not.toMatch(/\n\s+at /)
      }
    })
  }

  it('a runner that does not say ready in time is a message, not a hang', async () => {
    // A runner that never says ready (the real image, its entry point replaced by an idle Node): a short
    // start timeout on the real runner can lose to a `ready` already waiting when the container has started.
    const silent = 'codeact-runner-silent:test'
    const dockerfile = `FROM codeact-runner:latest\nENTRYPOINT ["/opt/codeact/node", "-e", "setInterval(() => {}, 1e6)"]\n`
    execFileSync('docker', ['build', '-q', '-t', silent, '-'], { input: dockerfile, stdio: ['pipe', 'ignore', 'inherit'] })
    const sandbox = createDockerSandbox({ image: silent, poolSize: 0, startTimeoutMs: 300 })
    const out = await sandbox.run(request(`return 1`), testHost(), never())
    await sandbox.close()
    expect(out).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable', message: 'the runner did not start within 300 ms' } })
  })

  it('a workspace that does not exist, escapes through a read-only entry, or cannot be used by an explicitly chosen container user is refused', async () => {
    const ws = tempWorkspace()
    fs.symlinkSync('/etc', path.join(ws, 'etc-link'))
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-closed-')) // 0700, owned by this (root) user
    const cases: Array<[DockerSandboxOptions, RegExp]> = [
      [{ workspace: { root: path.join(os.tmpdir(), 'codeact-no-such-ws') } }, /the workspace .* does not exist/],
      [{ workspace: { root: ws, readOnly: ['etc-link'] } }, /the read-only path etc-link resolves outside the workspace/],
      [{ workspace: { root: ws, readOnly: ['../x'] } }, /the read-only path \.\.\/x is outside the workspace/],
      [{ workspace: { root: ws, mountAt: '/usr/lib' } }, /cannot be mounted at \/usr\/lib/],
      [
        { workspace: { root: closed }, user: '65534:65534' },
        /the workspace .* \(owner 0:0, mode 700\) is not writable by the container's user 65534:65534: chown it/,
      ],
      [{ workspace: { root: closed, readOnly: true }, user: '1234:1234' }, /is not readable by the container's user 1234:1234/],
    ]
    for (const [options, message] of cases) {
      const sandbox = createDockerSandbox({ ...options, poolSize: 0 })
      const out = await sandbox.run(request(`return 1`), testHost(), never())
      await sandbox.close()
      expect(out).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable', message: expect.stringMatching(message) } })
    }
    fs.rmSync(ws, { recursive: true, force: true })
    fs.rmSync(closed, { recursive: true, force: true })
  })
})

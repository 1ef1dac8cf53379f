// Every hardening default, attacked from inside a program: the network, the root filesystem, /tmp, the
// process limit, privileges, the host's environment, memory. Each attack must fail the way the kernel says.
import Docker from 'dockerode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { GVISOR_HOST_PIDS_PER_TASK } from '../../sandbox/docker/spec.js'
import type { SandboxOutcome } from '../../sandbox/types.js'
import { dockerRuntimeCases } from './engine.js'
import { ensureImage, never, ownContainers, request, testHost } from './helpers.js'

function value(out: SandboxOutcome): unknown {
  if (!out.ok) throw new Error(`run failed: ${out.error.kind}: ${out.error.message}`)
  return out.valueJson === undefined ? undefined : JSON.parse(out.valueJson)
}

// Once per OCI runtime: runc, and gVisor (runsc), whose own kernel answers some probes its own way (noted
// where it does: `gvisor` below).
for (const runtime of dockerRuntimeCases) {
  const gvisor = runtime.name === 'runsc'
  describe.skipIf(runtime.skip !== undefined)(`docker sandbox: hardening (${runtime.name})`, () => {
    let sandbox: DockerSandbox
    const sandboxes: DockerSandbox[] = []
    const make = (o: Parameters<typeof createDockerSandbox>[0]): DockerSandbox => {
      const s = createDockerSandbox({ ...o, ...runtime.option })
      sandboxes.push(s)
      return s
    }
    beforeAll(async () => {
      await ensureImage()
      process.env.CODEACT_TEST_SECRET = 'hunter2-host-secret'
      sandbox = make({ poolSize: 1 })
    })
    afterAll(async () => {
      delete process.env.CODEACT_TEST_SECRET
      await Promise.all(sandboxes.map((s) => s.close()))
      expect(await ownContainers()).toEqual([])
    })

    it('the container is created with every default (inspected while the program runs)', async () => {
      const host = testHost()
      let info: Docker.ContainerInspectInfo | undefined
      const answer = host.callTool.bind(host)
      host.callTool = async (name, argsJson) => {
        info = await new Docker().getContainer((JSON.parse(argsJson) as { id: string }).id).inspect()
        return answer(name, argsJson)
      }
      value(await sandbox.run(request(`return tools.echo({ id: require('node:os').hostname() })`), host, never()))
      const hc = info?.HostConfig
      expect(hc).toMatchObject({
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Privileged: false,
        // Under gVisor the program's 128 is RLIMIT_NPROC (its kernel's own count); the cgroup leaves the
        // Sentry's host threads room (test/docker/pids-limit.test.ts forks past it).
        PidsLimit: gvisor ? 128 * GVISOR_HOST_PIDS_PER_TASK + 256 : 128,
        Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, ...(gvisor ? [{ Name: 'nproc', Soft: 128, Hard: 128 }] : [])],
        Memory: 128 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        NanoCpus: 1e9,
        AutoRemove: false,
        Tmpfs: { '/tmp': 'rw,noexec,nosuid,nodev,size=64m,mode=1777' },
      })
      // Really under gVisor (or the engine's default), with the runner started from the right node binary.
      expect(hc?.Runtime).toBe(gvisor ? 'runsc' : 'runc')
      expect(info?.Config.Entrypoint?.[0]).toBe(gvisor ? '/usr/local/bin/node' : '/opt/codeact/node')
      expect(info?.Config.User).toBe('65534:65534')
      expect(info?.Config.Labels).toMatchObject({ codeact: '1', 'codeact.owner': expect.stringMatching(new RegExp(`:${process.pid}$`)) })
      expect(JSON.stringify(info?.Config.Env)).not.toContain('hunter2')
    })

    it('no network: only loopback, and a connection out fails', async () => {
      const out = await sandbox.run(
        request(`
        const net = require('node:net')
        const ifaces = Object.keys(require('node:os').networkInterfaces())
        const code = await new Promise((resolve) => {
          const s = net.connect({ host: '1.1.1.1', port: 53, timeout: 3000 })
          s.on('connect', () => { s.destroy(); resolve('connected') })
          s.on('timeout', () => { s.destroy(); resolve('timeout') })
          s.on('error', (e) => resolve(e.code))
        })
        const dns = await require('node:dns').promises.lookup('example.com').then(() => 'resolved', (e) => e.code)
        return { ifaces, code, dns }`),
        testHost(),
        never(),
      )
      const v = value(out) as { ifaces: string[]; code: string; dns: string }
      expect(v.ifaces).toEqual(['lo'])
      expect(['ENETUNREACH', ...(gvisor ? ['EHOSTUNREACH'] : [])]).toContain(v.code)
      expect(['EAI_AGAIN', 'ENOTFOUND']).toContain(v.dns)
    })

    it('network: true is the only way to get an interface besides loopback', async () => {
      const open = make({ poolSize: 0, network: true })
      const v = value(await open.run(request(`return Object.keys(require('node:os').networkInterfaces())`), testHost(), never()))
      // gVisor as configured here (`runtimeArgs: ["--network=none"]`, README) has no network stack at all.
      if (gvisor) expect(v).toEqual(['lo'])
      else expect(v).toContain('eth0')
    })

    it('the root filesystem is read-only: writes to /, /etc, the runner and node fail with EROFS, listed as denials', async () => {
      const out = await sandbox.run(
        request(`
        const fs = require('node:fs')
        const codes = []
        for (const p of ['/x', '/etc/passwd', '/opt/codeact/runner.mjs', '/usr/local/bin/node']) {
          try { fs.writeFileSync(p, 'pwned'); codes.push('written') } catch (e) { codes.push(e.code) }
        }
        await require('node:fs/promises').mkdir('/newdir').catch((e) => codes.push(e.code))
        return codes`),
        testHost(),
        never(),
      )
      // gVisor checks the (root-owned) files' permissions before the mount's read-only flag: EACCES first.
      const want = gvisor ? ['EACCES', 'EACCES', 'EACCES', 'EACCES', 'EROFS'] : ['EROFS', 'EROFS', 'EROFS', 'EROFS', 'EROFS']
      expect(value(out)).toEqual(want)
      expect(out.denials?.map((d) => d.code)).toEqual(want)
      expect(out.denials?.[0]?.message).toMatch(gvisor ? /permission denied.*\/x/ : /read-only file system.*\/x/)
    })

    it('/tmp is a small tmpfs: filling it stops at its size (ENOSPC), and nothing there can be executed', async () => {
      const small = make({ poolSize: 0, tmpSizeMb: 8 })
      const out = await small.run(
        request(`
        const fs = require('node:fs')
        const chunk = Buffer.alloc(1 << 20, 120)
        let written = 0, code
        try { for (let i = 0; i < 64; i++) { fs.appendFileSync('/tmp/fill', chunk); written++ } } catch (e) { code = e.code }
        fs.rmSync('/tmp/fill')
        fs.copyFileSync('/usr/bin/sleep', '/tmp/sleep2')
        fs.chmodSync('/tmp/sleep2', 0o755)
        const run = require('node:child_process').spawnSync('/tmp/sleep2', ['0'])
        return { written, code, exec: run.error && run.error.code }`),
        testHost(),
        never(),
      )
      expect(value(out)).toEqual({ written: expect.any(Number), code: 'ENOSPC', exec: 'EACCES' })
      expect((value(out) as { written: number }).written).toBeLessThanOrEqual(8)
      expect(out.denials?.map((d) => d.code)).toContain('EACCES')
    })

    it('a fork bomb hits the pids limit: spawns fail with EAGAIN and the host is fine', async () => {
      const tight = make({ poolSize: 0, pidsLimit: 32 })
      const out = await tight.run(
        request(`
        const { spawn } = require('node:child_process')
        const results = await Promise.all(Array.from({ length: 80 }, () => new Promise((resolve) => {
          const c = spawn('/usr/bin/sleep', ['5'])
          c.on('spawn', () => resolve('ok'))
          c.on('error', (e) => resolve(e.code))
        })))
        const ok = results.filter((r) => r === 'ok').length
        return { ok, failed: results.filter((r) => r !== 'ok') }`),
        testHost(),
        never(),
      )
      const v = value(out) as { ok: number; failed: string[] }
      expect(v.ok).toBeLessThan(32)
      expect(v.failed.length).toBeGreaterThan(40)
      expect(new Set(v.failed)).toEqual(new Set(['EAGAIN']))
    })

    it('not root, no capabilities, no new privileges, seccomp filtering: privileged calls fail with EPERM', async () => {
      const out = await sandbox.run(
        request(`
        const fs = require('node:fs')
        const status = fs.readFileSync('/proc/self/status', 'utf8')
        const field = (k) => (status.match(new RegExp('^' + k + ':\\\\s*(\\\\S+)', 'm')) || [])[1]
        const tries = {}
        try { process.setuid(0); tries.setuid = 'became root' } catch (e) { tries.setuid = e.code }
        fs.writeFileSync('/tmp/f', 'x')
        try { fs.chownSync('/tmp/f', 0, 0); tries.chown = 'chowned' } catch (e) { tries.chown = e.code }
        try { process.setgroups([0]); tries.setgroups = 'joined root' } catch (e) { tries.setgroups = e.code }
        try { require('node:os').setPriority(0, -10); tries.nice = 'raised priority' } catch (e) { tries.nice = e.info ? e.info.code : e.code }
        return { uid: process.getuid(), gid: process.getgid(), capEff: field('CapEff'), capBnd: field('CapBnd'),
          noNewPrivs: field('NoNewPrivs'), seccomp: field('Seccomp'), tries }`),
        testHost(),
        never(),
      )
      expect(value(out)).toEqual(
        gvisor
          ? // gVisor's /proc shows neither flag (seccomp and no-new-privileges hold on its host process), and
            // a priority raised inside its kernel reaches no host scheduler.
            {
              uid: 65534,
              gid: 65534,
              capEff: '0000000000000000',
              capBnd: '0000000000000000',
              seccomp: '0',
              tries: { setuid: 'EPERM', chown: 'EPERM', setgroups: 'EPERM', nice: 'raised priority' },
            }
          : {
              uid: 65534,
              gid: 65534,
              capEff: '0000000000000000',
              capBnd: '0000000000000000',
              noNewPrivs: '1',
              seccomp: '2',
              tries: { setuid: 'EPERM', chown: 'EPERM', setgroups: 'EPERM', nice: 'EACCES' },
            },
      )
      expect(out.denials?.map((d) => d.code)).toContain('EPERM')
    })

    it("nothing of the host's environment passes in", async () => {
      expect(process.env.CODEACT_TEST_SECRET).toBe('hunter2-host-secret')
      const v = value(await sandbox.run(request(`return process.env`), testHost(), never())) as Record<string, string>
      expect(JSON.stringify(v)).not.toContain('hunter2')
      expect(Object.keys(v).sort()).toEqual(['HOME', 'HOSTNAME', 'PATH'])
      expect(v.HOME).toBe('/tmp')
    })

    it('memory: a program that outgrows the container is OOM-killed and the outcome says memory', async () => {
      const out = await sandbox.run(
        request(`const keep = []; for (;;) { keep.push(Buffer.alloc(8 << 20, 1)); await new Promise((r) => setImmediate(r)) }`),
        testHost(),
        never(),
      )
      expect(out).toMatchObject({ ok: false, error: { kind: 'memory' } })
      // gVisor does not always record the OOM kill as such; the outcome is still memory, naming the limit.
      if (!out.ok) expect(out.error.message).toMatch(/memory limit of 128 MB/)
    })

    it('memory: a JavaScript heap that outgrows the limit is reported as memory too', async () => {
      const out = await sandbox.run(request(`const keep = []; for (;;) keep.push({ a: Math.random(), b: [1, 2, 3] })`), testHost(), never())
      expect(out).toMatchObject({ ok: false, error: { kind: 'memory' } })
    })
  })
}

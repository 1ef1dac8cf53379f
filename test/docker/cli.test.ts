// The Docker backend from the command line, as a user runs it: the built bin, a real process, a real
// container, a workspace owned by root (the common case in CI and in containers), Node's modules.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_IMAGE } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, ownContainers } from './helpers.js'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

function codeact(args: string[], input: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repo, 'bin/codeact.mjs'), ...args], { cwd: repo, env: { ...process.env } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
    child.stdin.end(input)
  })
}

function json(r: { stdout: string; stderr: string }): {
  ok: boolean
  value: unknown
  error: { kind: string; message: string } | null
  observation: string
} {
  try {
    return JSON.parse(r.stdout)
  } catch {
    throw new Error(`not JSON:\n${r.stdout}\n${r.stderr}`)
  }
}

const normaliserPresent = fs.existsSync(path.join(repo, 'program/normalise.ts'))
const gvisor = dockerEngine.runtimes.includes('runsc') || process.env['CI'] === 'true'

describe.skipIf(!dockerEngine.available || process.getuid?.() !== 0)('codeact run --sandbox docker', () => {
  let ws: string
  beforeAll(async () => {
    await ensureImage()
    // Root-owned and 0700, as mkdtemp makes it for root: nobody else may even look inside.
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-cli-rootws-'))
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'alpha\nbeta\n')
    fs.writeFileSync(path.join(ws, 'alice-private.txt'), 'alice only')
    fs.chownSync(path.join(ws, 'alice-private.txt'), 1000, 1000)
    fs.chmodSync(path.join(ws, 'alice-private.txt'), 0o600)
  })
  afterAll(async () => {
    fs.rmSync(ws, { recursive: true, force: true })
    expect(await ownContainers()).toEqual([])
  })

  it('a root-owned workspace works out of the box: the program is its owner, with no capabilities', async () => {
    expect(fs.statSync(ws).uid).toBe(0)
    const program = `
      const fs = require('node:fs')
      await tools.write_file({ path: 'from-tool.txt', content: 'tool\\n' })
      fs.writeFileSync('from-node.txt', 'node\\n')
      const sh = await tools.bash({ command: "id -u; grep CapEff /proc/self/status | tr -d '\\\\t'; cat alice-private.txt 2>&1 || true" })
      let rootfs
      try { fs.writeFileSync('/etc/owned', 'x') } catch (e) { rootfs = e.code }
      return { uid: process.getuid(), notes: (await tools.read_file({ path: 'notes.txt' })).split('\\n')[0], sh: sh.stdout.trim().split('\\n'), rootfs }`
    const r = await codeact(
      ['run', '-', '--sandbox', 'docker', '--workspace', ws, '--json', '--typecheck=off', '--docker-pool-size', '0'],
      program,
    )
    const result = json(r)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toEqual({
      uid: 0,
      notes: 'alpha',
      // Root without CAP_DAC_OVERRIDE: another user's 0600 file stays closed, though the caller could read it.
      sh: ['0', 'CapEff:0000000000000000', 'cat: alice-private.txt: Permission denied'],
      rootfs: 'EROFS',
    })
    expect(fs.readFileSync(path.join(ws, 'from-tool.txt'), 'utf8')).toBe('tool\n')
    expect(fs.statSync(path.join(ws, 'from-node.txt')).uid).toBe(0)
    expect(r.status).toBe(0)
  }, 180_000)

  it('type-checks Node programs against Node’s types and loads only Node’s own modules', async () => {
    const good = `
      const fsm = await import('node:fs')
      const { join } = await import('node:path')
      const os = require('node:os')
      const names: string[] = fsm.readdirSync(join('.', '.')).sort()
      return { names: names.filter((n) => n.endsWith('.txt')), cpus: os.cpus().length > 0, pid: typeof process.pid }`
    const ok = await codeact(
      ['run', '-', '--sandbox', 'docker', '--workspace', ws, '--json', '--docker-pool-size', '0', '--read-only', '.'],
      good,
    )
    const result = json(ok)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toMatchObject({ cpus: true, pid: 'number' })
    expect((result.value as { names: string[] }).names).toContain('notes.txt')

    // A wrong use of a Node API is a type error before anything runs.
    const typo = await codeact(
      ['run', '-', '--sandbox', 'docker', '--json', '--docker-pool-size', '0'],
      `const fs = await import('node:fs')\nreturn fs.readFileSync('x', 'utf8').toFixed(2)`,
    )
    expect(json(typo).error).toMatchObject({ kind: 'type' })
    expect(json(typo).error?.message).toMatch(/toFixed/)
    expect(typo.status).toBe(1)

    // Anything but a built-in module (the runner's own files, a data: URL, a path) is refused by name.
    const files = await codeact(
      ['run', '-', '--sandbox', 'docker', '--json', '--docker-pool-size', '0', '--typecheck=off'],
      `
      const out = []
      for (const spec of ['/opt/codeact/runner.mjs', 'file:///opt/codeact/realm.mjs', 'data:text/javascript,export default 1', './x.mjs', 'node:inspector']) {
        try { await import(spec); out.push('loaded') } catch (e) { out.push(e.code) }
      }
      return out`,
    )
    expect(json(files).value).toEqual(Array(5).fill('ERR_UNSUPPORTED_PROGRAM_IMPORT'))
  }, 240_000)

  it.skipIf(!normaliserPresent)(
    "`import fs from 'node:fs'` works in the Docker backend (program/normalise.ts rewrites it)",
    async () => {
      const r = await codeact(
        ['run', '-', '--sandbox', 'docker', '--workspace', ws, '--json', '--docker-pool-size', '0'],
        `import fs from 'node:fs'\nimport { join } from 'node:path'\nreturn fs.readFileSync(join('.', 'notes.txt'), 'utf8').split('\\n')[1]`,
      )
      expect(json(r).value).toBe('beta')
    },
    180_000,
  )

  it('every Docker option has a flag: limits reach the container', async () => {
    const r = await codeact(
      [
        'run',
        '-',
        '--sandbox',
        'docker',
        '--json',
        '--typecheck=off',
        '--docker-image',
        DEFAULT_IMAGE,
        '--docker-pool-size',
        '0',
        '--docker-memory',
        '200',
        '--docker-pids-limit',
        '40',
        '--docker-cpus',
        '0.5',
        '--docker-tmp-size',
        '8',
        '--docker-network',
      ],
      `const fs = require('node:fs'), cp = require('node:child_process')
       // cgroup v2 (one file each) or v1 (a folder per controller)
       const read = (v2, v1) => { try { return fs.readFileSync('/sys/fs/cgroup/' + v2, 'utf8').trim() } catch { return v1.map((f) => fs.readFileSync('/sys/fs/cgroup/' + f, 'utf8').trim()).join(' ') } }
       return { memory: read('memory.max', ['memory/memory.limit_in_bytes']), pids: read('pids.max', ['pids/pids.max']),
         cpu: read('cpu.max', ['cpu/cpu.cfs_quota_us', 'cpu/cpu.cfs_period_us']),
         tmp: cp.execSync('df -k /tmp | tail -1', { encoding: 'utf8' }).trim().split(/\\s+/)[1],
         interfaces: fs.readFileSync('/proc/net/dev', 'utf8').split('\\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean).sort() }`,
    )
    const result = json(r)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toEqual({
      memory: String(200 * 1024 * 1024),
      pids: '40',
      cpu: '50000 100000',
      tmp: String(8 * 1024),
      interfaces: ['eth0', 'lo'],
    })
  }, 180_000)

  it.skipIf(!gvisor)(
    '--docker-runtime runsc runs the program under gVisor',
    async () => {
      const r = await codeact(
        ['run', '-', '--sandbox', 'docker', '--json', '--typecheck=off', '--docker-pool-size', '0', '--docker-runtime', 'runsc'],
        `return require('node:fs').readFileSync('/proc/version', 'utf8')`,
      )
      const result = json(r)
      expect(result.error, result.observation).toBeNull()
      // gVisor's kernel answers with its own made-up version, not the host's.
      expect(result.value).not.toBe(fs.readFileSync('/proc/version', 'utf8'))
      expect(String(result.value)).toMatch(/^Linux version 4\.4\.0/)
    },
    180_000,
  )

  it('bad Docker flags are usage errors (exit 2) that say what is wanted', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--docker-memory', '5'], /--docker-memory needs a number of at least 16/],
      [['--docker-user', 'root'], /--docker-user needs UID or UID:GID/],
      [['--docker-pool-size', '1.5'], /--docker-pool-size needs a whole number/],
      [['--docker-runtime', 'run sc'], /not a runtime name/],
    ]
    for (const [flags, message] of cases) {
      const r = await codeact(['run', '-', '--sandbox', 'docker', ...flags], 'return 1')
      expect(r.stderr).toMatch(message)
      expect(r.status).toBe(2)
    }
    const noSandbox = await codeact(['run', '-', '--docker-image', 'x'], 'return 1')
    expect(noSandbox.stderr).toMatch(/--docker-image needs --sandbox docker/)
    expect(noSandbox.status).toBe(2)
    const missing = await codeact(
      ['run', '-', '--sandbox', 'docker', '--typecheck=off', '--docker-image', 'codeact-runner:no-such-tag', '--docker-pool-size', '0'],
      'return 1',
    )
    expect(missing.stdout).toMatch(/sandbox_unavailable.*codeact-runner:no-such-tag/)
    expect(missing.status).toBe(3)
  }, 180_000)
})

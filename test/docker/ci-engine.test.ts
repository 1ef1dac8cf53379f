// CI's engine set-up (.ci/docker-engine.sh, .ci/docker-runtime.mjs), run against stub `docker` and `dockerd`
// commands and a config file of its own: never against the machine's engine or its /etc/docker.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const MERGE = path.join(repo, '.ci/docker-runtime.mjs')

function merge(file: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [MERGE, file, 'runsc', '/usr/bin/runsc', '--network=none'], { encoding: 'utf8' })
  return { status: r.status, out: (r.stdout + r.stderr).trim() }
}

describe('.ci/docker-runtime.mjs: runsc merged into daemon.json', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-ci-json-'))
  const want = { path: '/usr/bin/runsc', runtimeArgs: ['--network=none'] }

  it('writes a missing file, keeps every other setting and runtime, and leaves a done file alone', () => {
    const missing = path.join(dir, 'new', 'daemon.json')
    expect(merge(missing)).toEqual({ status: 0, out: 'changed' })
    expect(JSON.parse(fs.readFileSync(missing, 'utf8'))).toEqual({ runtimes: { runsc: want } })

    const existing = path.join(dir, 'daemon.json')
    fs.writeFileSync(
      existing,
      JSON.stringify({ 'log-driver': 'local', 'data-root': '/srv/docker', runtimes: { crun: { path: '/usr/bin/crun' } } }),
    )
    expect(merge(existing).out).toBe('changed')
    expect(JSON.parse(fs.readFileSync(existing, 'utf8'))).toEqual({
      'log-driver': 'local',
      'data-root': '/srv/docker',
      runtimes: { crun: { path: '/usr/bin/crun' }, runsc: want },
    })
    const before = fs.readFileSync(existing, 'utf8')
    expect(merge(existing).out).toBe('unchanged')
    expect(fs.readFileSync(existing, 'utf8')).toBe(before)

    // An older runsc entry (other arguments) is brought up to date.
    fs.writeFileSync(existing, JSON.stringify({ runtimes: { runsc: { path: '/opt/runsc' } } }))
    expect(merge(existing).out).toBe('changed')
    expect(JSON.parse(fs.readFileSync(existing, 'utf8')).runtimes.runsc).toEqual(want)
  })

  it('refuses to rewrite a config that is not a JSON object', () => {
    for (const text of ['{ "runtimes": ', '[1, 2]', 'null']) {
      const f = path.join(dir, 'broken.json')
      fs.writeFileSync(f, text)
      expect(merge(f).status).toBe(1)
      expect(fs.readFileSync(f, 'utf8')).toBe(text)
    }
    expect(fs.readdirSync(dir).filter((f) => f.includes('.codeact-'))).toEqual([])
  })
})

/**
 * Stubs: `docker info` answers while the stub dockerd runs and lists the runtimes it loaded from its config
 * file; the stub dockerd reloads that file on SIGHUP, as dockerd does for `runtimes`.
 */
function stubs(dir: string, reloads: boolean): void {
  const bin = path.join(dir, 'bin')
  fs.mkdirSync(bin, { recursive: true })
  const write = (name: string, text: string) => fs.writeFileSync(path.join(bin, name), text, { mode: 0o755 })
  write(
    'docker',
    `#!/bin/bash
[[ -f "$STUB/running" ]] || exit 1
[[ "$*" == *Runtimes* ]] && cat "$STUB/runtimes"
exit 0
`,
  )
  write(
    'dockerd',
    `#!/bin/bash
config=/etc/docker/daemon.json
[[ $1 == --config-file ]] && config=$2
load() { "${process.execPath}" -e 'const fs = require("fs"); let c = {}; try { c = JSON.parse(fs.readFileSync(process.argv[1], "utf8")) } catch {}; process.stdout.write(JSON.stringify({ runc: {}, ...(c.runtimes || {}) }))' "$config" > "$STUB/runtimes"; }
load
echo $$ > "$CODEACT_DOCKERD_PIDFILE"
echo "start $$" >> "$STUB/log"
trap '${reloads ? 'load; ' : ''}echo hup >> "$STUB/log"' HUP
trap 'rm -f "$STUB/running"; echo "stop $$" >> "$STUB/log"; exit 0' TERM
touch "$STUB/running"
while true; do sleep 0.1; done
`,
  )
  write('runsc', '#!/bin/sh\nexit 0\n')
  // Never the machine's own dockerd: no pid found by name, no systemd unit to restart.
  write('pidof', '#!/bin/sh\nexit 1\n')
  write('systemctl', '#!/bin/sh\nexit 1\n')
}

function ensure(dir: string): string {
  return execFileSync('bash', ['-c', `source ${JSON.stringify(path.join(repo, '.ci/docker-engine.sh'))}; ensure_docker_engine`], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`,
      STUB: dir,
      CODEACT_DOCKERD_CONFIG: path.join(dir, 'daemon.json'),
      CODEACT_DOCKERD_PIDFILE: path.join(dir, 'dockerd.pid'),
      CODEACT_DOCKERD_LOG: path.join(dir, 'dockerd.log'),
    },
    timeout: 120_000,
  })
}

describe('.ci/docker-engine.sh against a stub engine', () => {
  const started: string[] = []
  afterEach(() => {
    // Only the stub dockerd processes these tests started, by their pid files.
    for (const dir of started.splice(0)) {
      const pid = Number(fs.readFileSync(path.join(dir, 'dockerd.pid'), 'utf8'))
      if (pid > 0) process.kill(pid, 'SIGTERM')
    }
  })
  const log = (dir: string) =>
    fs
      .readFileSync(path.join(dir, 'log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0])
  const runtimes = (dir: string) => Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'runtimes'), 'utf8'))).sort()
  const startStub = async (dir: string) => {
    spawnSync('bash', [
      '-c',
      `STUB=${dir} CODEACT_DOCKERD_PIDFILE=${dir}/dockerd.pid setsid ${dir}/bin/dockerd --config-file ${dir}/daemon.json >/dev/null 2>&1 &`,
    ])
    for (let i = 0; i < 100 && !fs.existsSync(path.join(dir, 'running')); i++) await new Promise((r) => setTimeout(r, 50))
    started.push(dir)
  }

  it('no engine yet: writes runsc into the config, then starts dockerd with it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-ci-engine-'))
    stubs(dir, true)
    fs.writeFileSync(path.join(dir, 'daemon.json'), JSON.stringify({ 'log-level': 'warn' }))
    ensure(dir)
    started.push(dir)
    expect(runtimes(dir)).toEqual(['runc', 'runsc'])
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'daemon.json'), 'utf8'))['log-level']).toBe('warn')
    expect(log(dir)).toEqual(['start'])
  }, 120_000)

  it('a running engine without runsc reloads its config on SIGHUP and is not restarted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-ci-engine-'))
    stubs(dir, true)
    await startStub(dir)
    expect(runtimes(dir)).toEqual(['runc'])
    ensure(dir)
    expect(runtimes(dir)).toEqual(['runc', 'runsc'])
    expect(log(dir)).toEqual(['start', 'hup'])
  }, 120_000)

  it('a running engine that ignores SIGHUP is restarted once; one that has runsc is left alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-ci-engine-'))
    stubs(dir, false)
    await startStub(dir)
    ensure(dir)
    expect(runtimes(dir)).toEqual(['runc', 'runsc'])
    expect(log(dir)).toEqual(['start', 'hup', 'stop', 'start'])
    const config = fs.readFileSync(path.join(dir, 'daemon.json'), 'utf8')
    ensure(dir)
    expect(log(dir)).toEqual(['start', 'hup', 'stop', 'start'])
    expect(fs.readFileSync(path.join(dir, 'daemon.json'), 'utf8')).toBe(config)
  }, 120_000)
})

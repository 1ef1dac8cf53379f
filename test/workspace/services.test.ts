/**
 * The Docker seam: when `ctx.services.workspace` holds a `WorkspaceOps`, the tools use it instead of
 * the host's — and the policy still runs first, on the host.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { createHostOps, WORKSPACE_SERVICE, type WorkspaceOps } from '../../sandbox/workspace/index.js'
import { codeOf, harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

/**
 * A second, real implementation: host ops over a mirror folder, reached by translating paths, the way a
 * container-side implementation sees the workspace at its own mount point. It logs each method it serves.
 */
function mirrorOps(root: string, mirror: string, served: string[]): WorkspaceOps {
  const inner = createHostOps({ root: mirror, readOnly: [], exec: false, network: false })
  const map = (p: string): string => mirror + p.slice(root.length)
  return {
    readFile: (p, max) => (served.push('readFile'), inner.readFile(map(p), max)),
    writeFile: (p, c) => (served.push('writeFile'), inner.writeFile(map(p), c)),
    mkdir: (p) => (served.push('mkdir'), inner.mkdir(map(p))),
    remove: (p, r) => (served.push('remove'), inner.remove(map(p), r)),
    readdir: (p) => (served.push('readdir'), inner.readdir(map(p))),
    stat: (p) => (served.push('stat'), inner.stat(map(p))),
    walk: (p, l) => (served.push('walk'), inner.walk(map(p), l)),
    exec: async (req) => (
      served.push('exec'),
      { stdout: `ran in mirror: ${req.command}`, stderr: '', exitCode: 0, signal: null, timedOut: false, truncated: false }
    ),
  }
}

test('the tools use ctx.services.workspace when present', async () => {
  h = harness({}, (root) => writeFileSync(join(root, 'host.txt'), 'host copy'))
  const mirror = mkdtempSync(join(tmpdir(), 'codeact-mirror-'))
  try {
    writeFileSync(join(mirror, 'host.txt'), 'mirror copy')
    const served: string[] = []
    const services = { [WORKSPACE_SERVICE]: mirrorOps(h.root, mirror, served) }
    const read = await h.call('read_file', { path: 'host.txt' }, services)
    expect(read).toEqual({ ok: true, value: 'mirror copy' })
    expect(codeOf(await h.call('write_file', { path: 'sub/new.txt', content: 'x' }, services))).toBe('ok')
    expect(readFileSync(join(mirror, 'sub/new.txt'), 'utf8')).toBe('x')
    expect(existsSync(join(h.root, 'sub/new.txt'))).toBe(false)
    expect(await h.call('glob', { pattern: '**/*.txt' }, services)).toEqual({ ok: true, value: ['host.txt', 'sub/new.txt'] })
    const bash = await h.call('bash', { command: 'ls' }, services)
    expect(bash).toEqual({ ok: true, value: { stdout: 'ran in mirror: ls', stderr: '', exit_code: 0 } })
    expect(served).toEqual(['readFile', 'writeFile', 'walk', 'exec'])
  } finally {
    rmSync(mirror, { recursive: true, force: true })
  }
})

test('the policy still runs on the host first: refused calls never reach the service', async () => {
  h = harness({ readOnly: ['ro'] }, (root) => mkdirSync(join(root, 'ro')))
  const mirror = mkdtempSync(join(tmpdir(), 'codeact-mirror-'))
  try {
    const served: string[] = []
    const services = { [WORKSPACE_SERVICE]: mirrorOps(h.root, mirror, served) }
    expect(codeOf(await h.call('write_file', { path: 'ro/x', content: 'x' }, services))).toBe('EROFS')
    expect(codeOf(await h.call('read_file', { path: '../outside/x' }, services))).toBe('EACCES')
    expect(codeOf(await h.call('remove', { path: '.', recursive: true }, services))).toBe('EPERM')
    expect(served).toEqual([])
  } finally {
    rmSync(mirror, { recursive: true, force: true })
  }
})

test('something that is not a WorkspaceOps under the key is ignored (host ops serve)', async () => {
  h = harness({}, (root) => writeFileSync(join(root, 'f'), 'host'))
  expect(await h.call('read_file', { path: 'f' }, { [WORKSPACE_SERVICE]: { readFile: 'nope' } })).toEqual({ ok: true, value: 'host' })
})

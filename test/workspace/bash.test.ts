/**
 * `bash` under real bubblewrap: confinement (env, network, the host's files), the denial dialect,
 * SANDBOX_UNAVAILABLE without ever running unconfined, timeouts that kill children, output caps.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '../../vocabulary/types.js'
import { classifyDenial } from '../../sandbox/workspace/bwrap.js'
import { codeOf, harness, type Harness } from './helpers.js'
import { bwrap } from '../support/bwrap.js'

let h: Harness
afterEach(() => h.cleanup())

interface BashValue {
  stdout: string
  stderr: string
  exit_code: number
  denied?: string
  truncated?: boolean
}

function value(r: ToolResult): BashValue {
  if (!r.ok) throw new Error(`bash failed: ${r.error.code} ${r.error.message}`)
  return r.value as unknown as BashValue
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!bwrap.available)('results', () => {
  test('stdout, stderr and a non-zero exit are a result, not an error; cwd is the workspace', async () => {
    h = harness()
    const v = value(await h.call('bash', { command: 'pwd; echo err >&2; exit 7' }))
    expect(v).toEqual({ stdout: `${h.root}\n`, stderr: 'err\n', exit_code: 7 })
    expect(h.denials).toEqual([])
  })

  test('writes in the workspace land on the host', async () => {
    h = harness()
    value(await h.call('bash', { command: 'mkdir -p a && printf hi > a/f.txt' }))
    expect(readFileSync(join(h.root, 'a/f.txt'), 'utf8')).toBe('hi')
  })

  test('a command that prints "bwrap: ..." itself and fails is an ordinary result, not SANDBOX_UNAVAILABLE', async () => {
    h = harness()
    const v = value(await h.call('bash', { command: 'echo "bwrap: Can\'t find source path" >&2; exit 1' }))
    expect(v.exit_code).toBe(1)
  })
})

describe.skipIf(!bwrap.available)('confinement', () => {
  test('nothing of the host environment leaks in', async () => {
    h = harness()
    process.env.CODEACT_TEST_SECRET = 'hunter2-leak-check'
    try {
      const v = value(await h.call('bash', { command: 'env' }))
      expect(v.stdout).not.toContain('hunter2-leak-check')
      expect(v.stdout).not.toContain('CODEACT_TEST_SECRET')
      const names = v.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('=')[0])
        .sort()
      // bash adds PWD, SHLVL and _ itself; the rest is what --setenv gave it.
      expect(names).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', '_'])
    } finally {
      delete process.env.CODEACT_TEST_SECRET
    }
  })

  test('network off: no interface but lo', async () => {
    h = harness()
    const v = value(await h.call('bash', { command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" }))
    expect(v.stdout).toBe('lo\n')
  })

  test('network on (--share-net) sees the host interfaces', async () => {
    h = harness({ network: true })
    const host = readFileSync('/proc/net/dev', 'utf8')
      .split('\n')
      .slice(2)
      .map((l) => l.split(':')[0]?.trim())
      .filter((n) => n)
    const v = value(await h.call('bash', { command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" }))
    expect(v.stdout.trim().split('\n').sort()).toEqual([...host].sort())
  })

  test('the host file system is absent or read-only: no home, no outside folder, no symlink way out', async () => {
    h = harness({}, (_root, outside) => writeFileSync(join(outside, 'secret.txt'), 'outside secret'))
    const { symlinkSync } = await import('node:fs')
    symlinkSync(h.outside, join(h.root, 'out'))
    const v = value(
      await h.call('bash', {
        command: `cat ${h.outside}/secret.txt; cat out/secret.txt; ls /root; test -e /etc/shadow && echo SHADOW; touch /usr/pwned; echo end`,
      }),
    )
    expect(v.stdout).toBe('end\n')
    expect(v.stdout + v.stderr).not.toContain('outside secret')
    expect(existsSync('/usr/pwned')).toBe(false)
    expect(v.denied).toBe('EROFS') // touch /usr/pwned
  })

  test("outside the workspace and /tmp nothing is writable, not even the sandbox's own scratch root", async () => {
    h = harness()
    const v = value(
      await h.call('bash', {
        command: 'echo x > /etc/planted; mkdir /newdir; echo tmp > /tmp/ok && cat /tmp/ok; echo ws > in-workspace.txt; echo end',
      }),
    )
    expect(v.stdout).toBe('tmp\nend\n')
    expect(v.stderr).toMatch(/Read-only file system/)
    expect(v.denied).toBe('EROFS')
    expect(readFileSync(join(h.root, 'in-workspace.txt'), 'utf8')).toBe('ws\n')
  })

  test('its own PID namespace: the host processes are invisible', async () => {
    h = harness()
    const v = value(await h.call('bash', { command: 'ls /proc | grep -E "^[0-9]+$" | wc -l' }))
    expect(Number(v.stdout.trim())).toBeLessThan(10)
    expect(value(await h.call('bash', { command: `kill -0 ${process.pid} 2>/dev/null && echo visible || echo hidden` })).stdout).toBe(
      'hidden\n',
    )
  })
})

describe('policy and availability', () => {
  test('exec off: EPERM from the policy and from the tool, and the command never runs', async () => {
    h = harness({ exec: false })
    const marker = join(h.root, 'ran')
    expect(await h.ws.policy({ id: 'b', name: 'bash', args: { command: `touch ${marker}` }, origin: 'native' })).toMatchObject({
      deny: { code: 'EPERM' },
    })
    const tool = h.ws.tools.find((t) => t.name === 'bash')
    const ctx = {
      callId: 'b',
      parentId: undefined,
      origin: 'code' as const,
      signal: new AbortController().signal,
      concludeTurn: () => undefined,
      reportDenial: () => undefined,
      services: {},
    }
    await expect(Promise.resolve().then(() => tool?.execute({ command: `touch ${marker}` }, ctx))).rejects.toMatchObject({ code: 'EPERM' })
    expect(existsSync(marker)).toBe(false)
  })

  test('a missing bwrap is SANDBOX_UNAVAILABLE, says what to install, and the command did not run', async () => {
    for (const bwrapPath of ['/nonexistent/bwrap', 'codeact-no-such-bwrap']) {
      h = harness({ bwrapPath })
      const marker = join(h.root, 'ran')
      const r = await h.call('bash', { command: `touch ${marker}` })
      expect(codeOf(r), bwrapPath).toBe('SANDBOX_UNAVAILABLE')
      expect(!r.ok && r.error.message).toMatch(/apt-get install bubblewrap/)
      expect(existsSync(marker)).toBe(false)
      h.cleanup()
    }
    h = harness()
  })

  test('a bwrap that cannot start (its own "bwrap: ..." line, non-zero exit) is SANDBOX_UNAVAILABLE; nothing runs', async () => {
    // A real program standing in for a broken bwrap (say, user namespaces disabled).
    const dir = mkdtempSync(join(tmpdir(), 'codeact-fake-bwrap-'))
    const fake = join(dir, 'bwrap')
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n')
    chmodSync(fake, 0o755)
    h = harness({ bwrapPath: fake })
    const marker = join(h.root, 'ran')
    const r = await h.call('bash', { command: `touch ${marker}` })
    expect(codeOf(r)).toBe('SANDBOX_UNAVAILABLE')
    expect(!r.ok && r.error.message).toMatch(/setting up uid map/)
    expect(existsSync(marker)).toBe(false)
    expect(h.denials).toEqual([]) // "Permission denied" from the runner is not a denial
    rmSync(dir, { recursive: true })
  })

  test("the denial dialect is bwrap's only", () => {
    expect(classifyDenial("touch: cannot touch 'x': Read-only file system")?.code).toBe('EROFS')
    expect(classifyDenial('cat: /x: Permission denied')?.code).toBe('EACCES')
    expect(classifyDenial('mount: Operation not permitted')?.code).toBe('EPERM')
    expect(classifyDenial('Access is denied.')).toBeUndefined() // windows-acl
    expect(classifyDenial('all fine')).toBeUndefined()
  })

  test.skipIf(!bwrap.available)('a kernel EACCES and EPERM inside the command are reported too', async () => {
    h = harness()
    // execve needs an x bit even for root: EACCES. chroot needs a capability the command does not have: EPERM.
    const acc = value(await h.call('bash', { command: 'printf "#!/bin/sh\\n" > /tmp/x.sh; /tmp/x.sh' }))
    expect(acc.denied).toBe('EACCES')
    const perm = value(await h.call('bash', { command: 'chroot / true' }))
    expect(perm.denied).toBe('EPERM')
    expect(h.denials.map((d) => d.code)).toEqual(['EACCES', 'EPERM'])
  })

  test.skipIf(!bwrap.available)(
    'no capabilities: the command cannot remount or unmount the read-only part (even run as root)',
    async () => {
      h = harness({ readOnly: ['ro'] }, (root) => {
        mkdirSync(join(root, 'ro'))
        writeFileSync(join(root, 'ro/f'), 'kept')
      })
      const v = value(
        await h.call('bash', {
          command:
            'mount -o remount,rw,bind ro; umount ro; umount -l ro; echo pwned > ro/f; echo x > ro/new; grep CapEff /proc/self/status',
        }),
      )
      expect(v.stdout).toBe('CapEff:\t0000000000000000\n')
      expect(v.denied).toBe('EROFS')
      expect(readFileSync(join(h.root, 'ro/f'), 'utf8')).toBe('kept')
      expect(existsSync(join(h.root, 'ro/new'))).toBe(false)
    },
  )
})

describe.skipIf(!bwrap.available)('limits', () => {
  test('the timeout kills the command and its children (ETIMEDOUT)', async () => {
    h = harness()
    const marker = join(h.root, 'late')
    const r = await h.call('bash', { command: `(sleep 1; touch ${marker}) & sleep 30`, timeout_ms: 300 })
    expect(codeOf(r)).toBe('ETIMEDOUT')
    expect(!r.ok && r.error.message).toMatch(/killed with all its processes/)
    await sleep(1_500)
    expect(existsSync(marker)).toBe(false)
  })

  test('background children die when the command exits', async () => {
    h = harness()
    const marker = join(h.root, 'orphan')
    value(await h.call('bash', { command: `(sleep 1; touch ${marker}) > /dev/null 2>&1 & echo started` }))
    await sleep(1_500)
    expect(existsSync(marker)).toBe(false)
  })

  test('an abort kills it (ECANCELED)', async () => {
    h = harness()
    const ac = new AbortController()
    const marker = join(h.root, 'late')
    setTimeout(() => ac.abort(), 200)
    const r = await h.call('bash', { command: `sleep 1; touch ${marker}` }, {}, ac.signal)
    expect(codeOf(r)).toBe('ECANCELED')
    await sleep(1_200)
    expect(existsSync(marker)).toBe(false)
  })

  test('output is capped per stream at 1 MiB and flagged', async () => {
    h = harness()
    const v = value(await h.call('bash', { command: 'head -c 3000000 /dev/zero | tr "\\0" a' }))
    expect(v.stdout.length).toBe(1024 * 1024)
    expect(v.truncated).toBe(true)
  })
})

/**
 * 12.4: bash's private /tmp is size-capped and its process count bounded by the kernel (a pids cgroup
 * for root, RLIMIT_NPROC in its own user namespace otherwise). A fork bomb ends, and the host can still
 * start processes while it runs.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '../../vocabulary/types.js'
import { DEFAULT_BASH_TMP_BYTES } from '../../sandbox/workspace/bwrap.js'
import { createWorkspace } from '../../sandbox/workspace/index.js'
import { harness, type Harness } from '../workspace/helpers.js'
import { bwrap } from '../support/bwrap.js'

let h: Harness
afterEach(() => h.cleanup())

interface BashValue {
  stdout: string
  stderr: string
  exit_code: number
}

function value(r: ToolResult): BashValue {
  if (!r.ok) throw new Error(`bash failed: ${r.error.code} ${r.error.message}`)
  return r.value as unknown as BashValue
}

/** Forks `n` sleepers as fast as it can, without a shell's fork retries, and prints how many it got. */
const forker = (n: number) =>
  `perl -e '$ok = 0; for (1..${n}) { my $p = fork; next unless defined $p; if ($p == 0) { sleep 20; exit 0 } $ok++ } print "$ok\\n"'`

/** Our own pids cgroups still on the host (none once every command has ended). */
function leftoverCgroups(): string[] {
  const v1 = '/sys/fs/cgroup/pids'
  if (!existsSync(v1)) return []
  return readdirSync(v1).filter((n) => n.startsWith(`codeact-${process.pid}-`))
}

describe.skipIf(!bwrap.available)('bash limits', () => {
  test(`/tmp is a tmpfs of ${DEFAULT_BASH_TMP_BYTES / 1024 / 1024} MiB by default, and a smaller cap is enforced`, async () => {
    h = harness()
    const df = value(await h.call('bash', { command: "df -B1 --output=size /tmp | tail -1 | tr -d ' '" }))
    expect(Number(df.stdout.trim())).toBe(DEFAULT_BASH_TMP_BYTES)
    h.cleanup()
    h = harness({ tmpBytes: 1024 * 1024 })
    const fill = value(await h.call('bash', { command: 'dd if=/dev/zero of=/tmp/fill bs=64k count=64 2>&1; echo rc=$?' }))
    expect(fill.stdout).toMatch(/No space left on device/)
    expect(fill.stdout).toMatch(/rc=1/)
  })

  test('parallel commands each get their own capped /tmp', async () => {
    h = harness({ tmpBytes: 1024 * 1024 })
    const cmd = 'dd if=/dev/zero of=/tmp/f bs=64k count=12 2>/dev/null && ls -l /tmp/f | wc -l'
    const all = await Promise.all([1, 2, 3].map(() => h.call('bash', { command: cmd })))
    for (const r of all) expect(value(r).stdout).toBe('1\n')
  })

  test('the process count is bounded: forking 60 sleepers gets far fewer than 60', async () => {
    h = harness({ maxProcesses: 16 })
    const v = value(await h.call('bash', { command: forker(60), timeout_ms: 20_000 }))
    const got = Number(v.stdout.trim())
    expect(got).toBeGreaterThan(0)
    expect(got).toBeLessThan(16)
    expect(leftoverCgroups()).toEqual([])
  })

  test('the bound is per command, not shared: two parallel commands each get their own', async () => {
    h = harness({ maxProcesses: 16 })
    const [a, b] = await Promise.all([h.call('bash', { command: forker(10) }), h.call('bash', { command: forker(10) })])
    expect([value(a as ToolResult).stdout, value(b as ToolResult).stdout]).toEqual(['10\n', '10\n'])
  })

  test('a fork bomb ends: the command returns, the host can still start processes meanwhile, nothing is left', async () => {
    h = harness({ maxProcesses: 64 })
    const bomb = h.call('bash', { command: 'b(){ b | b & }; b; sleep 3; echo survived', timeout_ms: 30_000 })
    await new Promise((r) => setTimeout(r, 1000))
    const probe = spawnSync('/bin/sh', ['-c', 'echo host-ok'], { encoding: 'utf8', timeout: 20_000 })
    expect(probe.stdout).toBe('host-ok\n')
    const v = value(await bomb)
    expect(v.stdout).toBe('survived\n')
    expect(v.stderr).toMatch(/Resource temporarily unavailable/)
    expect(leftoverCgroups()).toEqual([])
  })

  test('a fork bomb that never stops is killed at its timeout with every process it made', async () => {
    h = harness({ maxProcesses: 64 })
    const r = await h.call('bash', { command: 'b(){ b | b & }; b; sleep 600', timeout_ms: 3000 })
    expect(r.ok ? 'ok' : r.error.code).toBe('ETIMEDOUT')
    expect(leftoverCgroups()).toEqual([])
  })

  test("bad limits are the caller's error at set-up", () => {
    h = harness()
    expect(() => createWorkspace({ root: h.root, maxProcesses: 0 })).toThrow(/maxProcesses must be a positive integer/)
    expect(() => createWorkspace({ root: h.root, tmpBytes: 1.5 })).toThrow(/tmpBytes must be a positive integer/)
  })
})

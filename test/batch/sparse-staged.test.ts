/**
 * Sparse and giant files in staged runs cost the host what the program paid, not what the files claim: a
 * `truncate -s 1500M` is summarised in the dry run's diff (size, sparse; never read), folded back into the
 * stage and applied with its holes kept, and the diff's reads are bounded by --max-diff-bytes. The host's
 * peak memory is measured by /usr/bin/time around the CLI, as a user runs it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATE_DIR, codeact, program, workspace } from './helpers.js'

const hasTime = existsSync('/usr/bin/time')
const MB = 1024 * 1024

/** The CLI under /usr/bin/time: its result and the host's peak RSS in MB. */
function measured(args: string[]): { status: number | null; signal: string | null; stdout: string; stderr: string; peakMb: number } {
  const r = spawnSync('/usr/bin/time', ['-f', 'peak %M', process.execPath, 'bin/codeact.mjs', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * MB,
    env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR },
  })
  const peak = /peak (\d+)\s*$/.exec(r.stderr)
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, peakMb: peak ? Number(peak[1]) / 1024 : Number.NaN }
}

const TRUNCATES = `
const r = await tools.bash({ command: 'truncate -s 1500M a.img b.img && truncate -s 1600M old.img' })
return r.exit_code`

describe.skipIf(!hasTime)('sparse files in staged runs', () => {
  it('a dry run of three 1.5 GB sparse files: summarised, never read; the host stays small', () => {
    const root = workspace({ 'notes.txt': 'hello\n', 'old.img': '' })
    truncateSync(join(root, 'old.img'), 1500 * MB)
    const r = measured(['run', program(TRUNCATES), '--workspace', root, '--dry-run', '--typecheck=off', '--json'])
    console.log(`dry run of three 1.5 GB sparse files: host peak RSS ${r.peakMb.toFixed(0)} MB`)
    expect(r.signal, 'the host did not answer within 60 s').toBeNull()
    expect(r.status, r.stderr).toBe(0)
    const changes = (JSON.parse(r.stdout) as { changes: { path: string; diff: string }[] }).changes
    expect(changes.map((c) => c.path).sort()).toEqual(['a.img', 'b.img', 'old.img'])
    const old = changes.find((c) => c.path === 'old.img')!.diff
    expect(old).toBe(
      `Files a/old.img and b/old.img differ; not read (a/old.img: ${1500 * MB} bytes, sparse; b/old.img: ${1600 * MB} bytes, sparse): a run's diffs read at most ${32 * MB} bytes (--max-diff-bytes)\n`,
    )
    expect(r.peakMb).toBeLessThan(400)
    expect(lstatSync(join(root, 'old.img')).size).toBe(1500 * MB)
  })

  it('--atomic applies them with their holes kept', () => {
    const root = workspace({ 'notes.txt': 'hello\n', 'old.img': '' })
    truncateSync(join(root, 'old.img'), 1500 * MB)
    const r = measured(['run', program(TRUNCATES), '--workspace', root, '--atomic', '--typecheck=off'])
    expect(r.signal, 'the host did not answer within 60 s').toBeNull()
    expect(r.status, r.stderr).toBe(0)
    for (const [name, size] of [
      ['a.img', 1500 * MB],
      ['old.img', 1600 * MB],
    ] as const) {
      const st = lstatSync(join(root, name))
      expect(st.size).toBe(size)
      expect(st.blocks * 512, `${name} was written out`).toBeLessThan(MB)
    }
    expect(r.peakMb).toBeLessThan(400)
  })
})

describe('--max-diff-bytes', () => {
  it("bounds what a run's diffs read: past it a file is summarised, naming the flag", () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const job = program(
      `await tools.write_file({ path: 'f.txt', content: (await tools.read_file({ path: 'f.txt' })).replace('line 7\\n', 'line seven\\n') })`,
    )
    const small = codeact([
      'run',
      job,
      '--workspace',
      workspace({ 'f.txt': text }),
      '--dry-run',
      '--typecheck=off',
      '--json',
      '--max-diff-bytes',
      '4KiB',
    ])
    const diff = (JSON.parse(small.stdout) as { changes: { diff: string }[] }).changes[0]!.diff
    expect(diff).toMatch(
      /^Files a\/f\.txt and b\/f\.txt differ; not read \(a\/f\.txt: \d+ bytes(; b\/f\.txt: \d+ bytes)?\): a run's diffs read at most 4096 bytes \(--max-diff-bytes\)\n$/,
    )
    const big = codeact(['run', job, '--workspace', workspace({ 'f.txt': text }), '--dry-run', '--typecheck=off', '--json'])
    expect((JSON.parse(big.stdout) as { changes: { diff: string }[] }).changes[0]!.diff).toContain('-line 7\n+line seven\n')
  })
})

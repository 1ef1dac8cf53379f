/**
 * The dry run's diff is bounded in time: a file rewritten whole (Myers' worst case, quadratic) is shown as
 * one hunk found in linear time, and the host answers within the run's --deadline. The diff stays exact:
 * `git apply` of it gives the new file byte for byte, final newlines or not.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unifiedDiff } from '../../runtime/changes/diff.js'
import { STATE_DIR, program, workspace } from './helpers.js'

const lines = (n: number, word: string): string => Array.from({ length: n }, (_, i) => `${word} ${i} of the file`).join('\n') + '\n'

/** git apply of `diff` to a file holding `before`: what the file then holds. */
function applied(before: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-diffbound-'))
  writeFileSync(join(dir, 'f.txt'), before)
  const r = spawnSync('git', ['apply', '--whitespace=nowarn', '-'], { cwd: dir, input: diff, encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return readFileSync(join(dir, 'f.txt'), 'utf8')
}

describe('the dry-run diff of a rewritten file', () => {
  it('a 20,000-line rewrite under --deadline 5000: the host answers, with a diff git applies', () => {
    const root = workspace({ 'big.txt': lines(20_000, 'old line') })
    const job = program(`
      const text = await tools.read_file({ path: 'big.txt' })
      await tools.write_file({ path: 'big.txt', content: text.replaceAll('old line', 'new line') })
      return 'ok'`)
    // Not a speed check: the old diff held the host 53-61 s; the run is killed at 30 s if it hangs so.
    const r = spawnSync(
      process.execPath,
      ['bin/codeact.mjs', 'run', job, '--workspace', root, '--dry-run', '--deadline', '5000', '--json'],
      {
        encoding: 'utf8',
        timeout: 30_000,
        maxBuffer: 256 * 1024 * 1024,
        env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR },
      },
    )
    expect(r.signal, 'the host did not answer').toBeNull()
    expect(r.status, r.stderr).toBe(0)
    const diff = (JSON.parse(r.stdout) as { changes: { path: string; diff: string }[] }).changes[0]!.diff
    expect(diff.startsWith('--- a/big.txt\n+++ b/big.txt\n@@ -1,20000 +1,20000 @@\n-old line 0 of the file\n')).toBe(true)
    expect(applied(lines(20_000, 'old line'), diff.replaceAll('big.txt', 'f.txt'))).toBe(lines(20_000, 'new line'))
  })

  it('the linear hunk keeps the common head and tail as context and gets final newlines right', () => {
    const head = lines(50, 'same head')
    const tail = lines(50, 'same tail')
    const cases: [string, string][] = [
      [head + lines(3000, 'old') + tail, head + lines(3000, 'new') + tail],
      [lines(3000, 'old'), lines(3000, 'new').slice(0, -1)],
      [lines(3000, 'old').slice(0, -1), lines(3000, 'new')],
      [head + lines(3000, 'old') + 'last', head + lines(3000, 'new') + 'last'],
      [head + lines(3000, 'old') + 'last', head + lines(3000, 'new') + 'last\n'],
      ['', lines(3000, 'new')],
      [lines(3000, 'old'), ''],
    ]
    for (const [before, after] of cases) {
      const diff = unifiedDiff('f.txt', Buffer.from(before), Buffer.from(after))
      expect(applied(before, diff)).toBe(after)
    }
    const cut = unifiedDiff('f.txt', Buffer.from(cases[0]![0]), Buffer.from(cases[0]![1]))
    expect(cut).toContain('@@ -48,3006 +48,3006 @@\n same head 47 of the file\n')
  })
})

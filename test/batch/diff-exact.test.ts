/**
 * The dry run's diff is exact: applied with `git apply` to a copy of the tree, it gives byte for byte the
 * tree that `--atomic` makes — CRLF lines, a missing final newline, creates, deletes and edits included —
 * and a binary change is git's one line. (`--json` carries each file's diff; the binary one is left out of
 * what `git apply` gets, as git itself would need `--binary`.)
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codeact, program, treeHash, workspace } from './helpers.js'

const hasGit = spawnSync('git', ['--version']).status === 0

const FILES: Record<string, string> = {
  'src/crlf.ts': 'export const a = 1\r\nexport const b = 2\r\nexport const c = 3\r\n',
  'src/noeol.txt': 'no final newline',
  'src/long.ts': Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n',
  'src/gone.ts': 'to be removed\n',
  'src/empty.txt': '',
}

const JOB = `
const crlf = await tools.read_file({ path: 'src/crlf.ts' })
await tools.write_file({ path: 'src/crlf.ts', content: crlf.replace('b = 2', 'b = 20') })
await tools.edit_file({ path: 'src/noeol.txt', old_string: 'final newline', new_string: 'final newline, still' })
await tools.edit_file({ path: 'src/long.ts', old_string: 'line 5\\n', new_string: 'line five\\n' })
await tools.edit_file({ path: 'src/long.ts', old_string: 'line 30\\n', new_string: '' })
await tools.remove({ path: 'src/gone.ts' })
await tools.write_file({ path: 'src/new/crlf-new.ts', content: 'one\\r\\ntwo' })
await tools.write_file({ path: 'src/empty.txt', content: 'now has text\\n' })
await tools.write_file({ path: 'assets/logo.png', content: 'not a png any more' })
return 'ok'`

function copyOf(root: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'codeact-diffcopy-')), 'tree')
  cpSync(root, dir, { recursive: true })
  return dir
}

describe.skipIf(!hasGit)('the dry-run diff is exact', () => {
  it('git apply of the printed diff reproduces what --atomic applies, byte for byte', () => {
    const root = workspace(FILES)
    mkdirSync(join(root, 'assets'))
    writeFileSync(join(root, 'assets/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))
    const before = treeHash(root)
    const target = copyOf(root)
    const atomic = copyOf(root)
    const job = program(JOB)

    const dry = codeact(['run', job, '--workspace', root, '--dry-run', '--typecheck=off', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(treeHash(root)).toBe(before)
    const changes = JSON.parse(dry.stdout).changes as { path: string; change: string; diff?: string }[]
    const diff = (path: string): string | undefined => changes.find((c) => c.path === path)?.diff
    expect(diff('src/crlf.ts')).toBe(
      '--- a/src/crlf.ts\n+++ b/src/crlf.ts\n@@ -1,3 +1,3 @@\n export const a = 1\r\n-export const b = 2\r\n+export const b = 20\r\n export const c = 3\r\n',
    )
    expect(diff('src/noeol.txt')).toBe(
      '--- a/src/noeol.txt\n+++ b/src/noeol.txt\n@@ -1 +1 @@\n-no final newline\n\\ No newline at end of file\n+no final newline, still\n\\ No newline at end of file\n',
    )
    expect(diff('src/new/crlf-new.ts')).toBe(
      '--- /dev/null\n+++ b/src/new/crlf-new.ts\n@@ -0,0 +1,2 @@\n+one\r\n+two\n\\ No newline at end of file\n',
    )
    expect(diff('assets/logo.png')).toBe('Binary files a/assets/logo.png and b/assets/logo.png differ\n')

    const text = changes.filter((c) => c.diff && !c.path.endsWith('/') && !c.diff.startsWith('Binary'))
    const applied = spawnSync('git', ['apply', '--whitespace=nowarn', '-'], {
      cwd: target,
      input: text.map((c) => c.diff).join(''),
      encoding: 'utf8',
    })
    expect(applied.status, applied.stderr).toBe(0)

    const at = codeact(['run', job, '--workspace', atomic, '--atomic', '--typecheck=off'])
    expect(at.status, at.stderr).toBe(0)
    for (const path of Object.keys(FILES).concat('src/new/crlf-new.ts')) {
      const read = (dir: string): string | undefined => {
        try {
          return readFileSync(join(dir, path), 'latin1')
        } catch {
          return undefined
        }
      }
      expect(read(target), path).toBe(read(atomic))
    }
    expect(readFileSync(join(atomic, 'assets/logo.png'), 'utf8')).toBe('not a png any more')
  })
})

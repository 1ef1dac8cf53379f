/**
 * --dry-run: the program runs against a staged view (reads see its own writes), nothing reaches the real
 * tree — bash included — and the exact unified diff of every change is printed.
 */
import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { STATE_DIR, codeact, program, treeHash, workspace } from './helpers.js'

const FILES = {
  'src/a.ts': 'import x from "lodash"\nexport const a = x.map([1], (n) => n)\n',
  'src/b.ts': 'import { y } from "lodash"\nexport const b = y\n',
  'src/keep.ts': 'export const keep = 1\n',
  'old/legacy.ts': 'legacy\n',
  'old/deep/more.ts': 'more\n',
  'README.md': '# demo\n',
}

const JOB = `
const files = await tools.glob({ pattern: 'src/**/*.ts' })
for (const path of files) {
  const text = await tools.read_file({ path })
  if (text.includes('"lodash"')) await tools.write_file({ path, content: text.replaceAll('"lodash"', '"lodash-es"') })
}
// reads see the run's own writes
const back = await tools.read_file({ path: 'src/a.ts' })
if (!back.includes('lodash-es')) throw new Error('the staged write is not visible')
await tools.edit_file({ path: 'README.md', old_string: '# demo', new_string: '# demo (ESM)' })
await tools.mkdir({ path: 'docs/notes' })
await tools.write_file({ path: 'docs/notes/migration.md', content: 'lodash -> lodash-es\\n' })
await tools.remove({ path: 'old', recursive: true })
const gone = await tools.list_dir({ path: '.' })
if (gone.some((e) => e.name === 'old')) throw new Error('the staged remove is not visible')
if (!gone.some((e) => e.name === 'docs') || !gone.some((e) => e.name === 'src')) throw new Error('the staged root does not list')
${
  bwrap.available
    ? `const sh = await tools.bash({ command: 'grep -rl lodash-es src | sort; echo generated > src/gen.ts; rm src/keep.ts; test ! -e old && echo old-gone' })
console.log(sh.stdout.trim())`
    : ''
}
return (await tools.glob({ pattern: '**/*' })).length`

const EXPECTED_DIFF =
  `--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# demo\n+# demo (ESM)\n` +
  `--- /dev/null\n+++ b/docs/notes/migration.md\n@@ -0,0 +1 @@\n+lodash -> lodash-es\n` +
  `--- a/old/deep/more.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-more\n` +
  `--- a/old/legacy.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-legacy\n` +
  `--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-import x from "lodash"\n+import x from "lodash-es"\n export const a = x.map([1], (n) => n)\n` +
  `--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n-import { y } from "lodash"\n+import { y } from "lodash-es"\n export const b = y\n` +
  (bwrap.available
    ? `--- /dev/null\n+++ b/src/gen.ts\n@@ -0,0 +1 @@\n+generated\n--- a/src/keep.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const keep = 1\n`
    : '')

describe('--dry-run', () => {
  it('leaves every byte of the tree as it was and prints the exact diff (CLI)', () => {
    const root = workspace(FILES)
    const before = treeHash(root)
    const r = codeact(['run', program(JOB), '--workspace', root, '--dry-run', '--typecheck=off'])
    expect(r.stderr).not.toContain('Error')
    expect(r.status).toBe(0)
    expect(treeHash(root)).toBe(before)
    expect(r.stdout.startsWith(EXPECTED_DIFF)).toBe(true)
    if (bwrap.available) expect(r.stdout).toContain('src/a.ts\nsrc/b.ts\nold-gone')
    expect(r.stdout).toContain('Dry run — nothing was written; the program would make these changes')
    expect(r.stderr).toContain(
      bwrap.available
        ? 'Dry run, nothing written: 3 would be modified, 2 would be created, 3 would be deleted, 0 unchanged, 0 failed'
        : 'Dry run, nothing written: 3 would be modified, 1 would be created, 2 would be deleted, 1 unchanged, 0 failed',
    )
    // No stage is left behind.
    expect(readdirSync(STATE_DIR, { recursive: true }).filter((p) => String(p).split('/').length > 2)).toEqual([])
  })

  it('--json carries the diff per file', () => {
    const root = workspace(FILES)
    const r = codeact(['run', program(JOB), '--workspace', root, '--dry-run', '--typecheck=off', '--json'])
    const result = JSON.parse(r.stdout)
    expect(result.applied).toBe('dry-run')
    const byPath = Object.fromEntries(result.changes.map((c: { path: string; change: string; diff: string }) => [c.path, c]))
    expect(byPath['src/a.ts']).toMatchObject({ change: 'modified' })
    expect(byPath['src/a.ts'].diff).toContain('+import x from "lodash-es"')
    expect(byPath['old/']).toMatchObject({ change: 'deleted' })
    expect(byPath['docs/notes/']).toMatchObject({ change: 'created' })
  })

  it('as a library option, and as the runtime default (native calls that would change the tree are refused)', async () => {
    const root = workspace(FILES)
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root }, changes: 'dry-run' })
    const r = await rt.runCode(JOB)
    expect(r.ok).toBe(true)
    expect(r.applied).toBe('dry-run')
    expect(r.changes?.map((c) => `${c.change} ${c.path}`)).toContain('modified src/a.ts')
    const [answer] = await rt.executeToolCalls([
      { id: 'c1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) } },
    ])
    expect(answer!.content).toContain('EPERM')
    expect(treeHash(root)).toBe(before)
  })

  it('a write to a read-only path is still EROFS in the staged view', async () => {
    const root = workspace({ 'vendor/lib.js': 'v1\n', 'a.txt': 'a\n' })
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root, readOnly: ['vendor'] } })
    const r = await rt.runCode(
      `
      try { await tools.write_file({ path: 'vendor/lib.js', content: 'hacked' }) } catch (e) { console.log(e.code) }
      await tools.write_file({ path: 'a.txt', content: 'b\\n' })`,
      { changes: 'dry-run' },
    )
    expect(r.logs.map((l) => l.text)).toContain('EROFS')
    expect(r.changes).toEqual([{ path: 'a.txt', change: 'modified', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n' }])
    expect(treeHash(root)).toBe(before)
  })
})

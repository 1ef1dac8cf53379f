/**
 * Staged runs hold the file tools' writes in memory: a dry run creates no file at all (not even in its
 * private stage) unless a `bash` command needs the view on disk, which then sees every write; past the
 * memory budget writes spill to the stage and the diff and changes are the same. Real runtime, real
 * isolate, real stage folders, real bash (where the machine can stage it).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { stagesOf } from '../../sandbox/workspace/staging/stage-dir.js'
import { stateDir } from '../../vocabulary/state-folder.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { treeHash, workspace } from './helpers.js'

const FILES: Record<string, string> = { 'README.md': '# demo\n', 'old/a.txt': 'a\n', 'old/deep/b.txt': 'b\n', 'keep.txt': 'keep\n' }
for (let i = 0; i < 20; i++) FILES[`src/m${String(i).padStart(2, '0')}.ts`] = `import x from "lodash"\nexport const v${i} = x\n`

/** Counts the files (not folders) in every stage of a workspace: what the run created on disk. */
function stagedFiles(root: string): number {
  const base = stagesOf(stateDir(), root)
  let n = 0
  const visit = (dir: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.isDirectory()) visit(join(dir, d.name))
      else if (dir.includes('/upper')) n++
    }
  }
  try {
    visit(base)
  } catch {
    // no stage yet
  }
  return n
}

function peekTool(root: string): AnyToolDefinition {
  return {
    name: 'peek_stage',
    description: 'How many files the stage folders of the workspace hold.',
    parameters: { type: 'object', properties: {} },
    execute: async () => stagedFiles(root),
  }
}

const WITH_BASH = bwrap.available

const JOB = `
for (let i = 0; i < 200; i++) await tools.write_file({ path: 'gen/g' + String(i).padStart(3, '0') + '.txt', content: 'gen ' + i + '\\n' })
for (const path of await tools.glob({ pattern: 'src/*.ts' })) {
  const text = await tools.read_file({ path })
  await tools.write_file({ path, content: text.replace('"lodash"', '"lodash-es"') })
}
await tools.edit_file({ path: 'README.md', old_string: '# demo', new_string: '# demo (ESM)' })
await tools.mkdir({ path: 'empty/dir' })
await tools.remove({ path: 'old', recursive: true })
await tools.remove({ path: 'gen/g199.txt' })
if ((await tools.read_file({ path: 'gen/g007.txt' })) !== 'gen 7\\n') throw new Error('own write not read back')
if ((await tools.list_dir({ path: 'gen' })).length !== 199) throw new Error('listing misses staged writes')
const st = await tools.stat({ path: 'src/m03.ts' })
if (st.size !== 'import x from "lodash-es"\\nexport const v3 = x\\n'.length) throw new Error('stat misses the staged write')
const peek = await tools.peek_stage({})
${
  WITH_BASH
    ? `const sh = await tools.bash({ command: 'cat gen/g042.txt; grep -c lodash-es src/m05.ts; test -d empty/dir && echo dir; test ! -e old && echo old-gone; echo from-bash > gen/bash.txt' })
const back = await tools.read_file({ path: 'gen/bash.txt' })
return { peek, out: sh.stdout, back }`
    : 'return { peek }'
}`

function expectedDiff(): string {
  const parts: string[] = []
  parts.push('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# demo\n+# demo (ESM)\n')
  parts.push('new folder empty/\n', 'new folder empty/dir/\n', 'new folder gen/\n')
  const gen = Array.from({ length: 199 }, (_, i) => `g${String(i).padStart(3, '0')}.txt`)
  if (WITH_BASH) gen.push('bash.txt')
  for (const name of gen.sort()) {
    const body = name === 'bash.txt' ? 'from-bash' : `gen ${Number(name.slice(1, 4))}`
    parts.push(`--- /dev/null\n+++ b/gen/${name}\n@@ -0,0 +1 @@\n+${body}\n`)
  }
  parts.push('deleted folder old/\n', '--- a/old/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n')
  parts.push('deleted folder old/deep/\n', '--- a/old/deep/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n')
  for (let i = 0; i < 20; i++)
    parts.push(
      `--- a/src/m${String(i).padStart(2, '0')}.ts\n+++ b/src/m${String(i).padStart(2, '0')}.ts\n@@ -1,2 +1,2 @@\n` +
        `-import x from "lodash"\n+import x from "lodash-es"\n export const v${i} = x\n`,
    )
  return parts.join('')
}

const budgetBefore = process.env.CODEACT_STAGE_MEMORY_BYTES
afterEach(() => {
  if (budgetBefore === undefined) delete process.env.CODEACT_STAGE_MEMORY_BYTES
  else process.env.CODEACT_STAGE_MEMORY_BYTES = budgetBefore
})

async function dryRun(budget?: number) {
  if (budget !== undefined) process.env.CODEACT_STAGE_MEMORY_BYTES = String(budget)
  const root = workspace(FILES)
  const before = treeHash(root)
  const rt = await testRuntime({ workspace: { root }, tools: [peekTool(root)], changes: 'dry-run' })
  const r = await rt.runCode(JOB)
  expect(r.ok, JSON.stringify(r.error)).toBe(true)
  expect(r.applied).toBe('dry-run')
  expect(treeHash(root)).toBe(before)
  const diff = (r.changes ?? []).map((c) => c.diff ?? '').join('')
  return { r, diff, value: r.value as { peek: number; out?: string; back?: string } }
}

describe('staged writes held in memory', () => {
  it('a dry run creates no file before bash; bash sees the writes; the tree is untouched; the diff is exact', async () => {
    const { r, diff, value } = await dryRun()
    // 219 files written, none of them created on disk (the old stage created each one in its folder).
    expect(value.peek).toBe(0)
    if (WITH_BASH) {
      expect(value.out).toBe('gen 42\n1\ndir\nold-gone\n')
      expect(value.back).toBe('from-bash\n')
    }
    expect(diff).toBe(expectedDiff())
    const paths = r.changes!.map((c) => `${c.change} ${c.path}`)
    expect(paths).toContain('created empty/')
    expect(paths).toContain('created empty/dir/')
    expect(paths).toContain('created gen/')
    expect(paths).toContain('deleted old/')
  })

  it('past the memory budget writes spill to the stage, with the same diff and the same changes', async () => {
    const small = await dryRun(600)
    expect(small.value.peek).toBeGreaterThan(100)
    const big = await dryRun()
    expect(small.diff).toBe(expectedDiff())
    expect(small.r.changes).toEqual(big.r.changes)
  })

  it.skipIf(!WITH_BASH)('what bash writes first, before any file tool, is seen by the file tools and in the diff', async () => {
    const root = workspace({ 'a.txt': 'a\n' })
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root }, changes: 'dry-run' })
    const r = await rt.runCode(`
      await tools.bash({ command: 'mkdir -p out && echo made > out/b.txt && echo changed > a.txt' })
      return [await tools.read_file({ path: 'out/b.txt' }), await tools.read_file({ path: 'a.txt' }), (await tools.glob({ pattern: '**/*.txt' })).join(',')]`)
    expect(r.ok, JSON.stringify(r.error)).toBe(true)
    expect(r.value).toEqual(['made\n', 'changed\n', 'a.txt,out/b.txt'])
    expect(r.changes?.map((c) => `${c.change} ${c.path}`)).toEqual(['modified a.txt', 'created out/', 'created out/b.txt'])
    expect(treeHash(root)).toBe(before)
  })

  it('an atomic run creates no file until it ends ok, then applies every change', async () => {
    const root = workspace(FILES)
    const rt = await testRuntime({ workspace: { root }, tools: [peekTool(root)], changes: 'atomic' })
    const r = await rt.runCode(`
      for (const path of await tools.glob({ pattern: 'src/*.ts' })) {
        const text = await tools.read_file({ path })
        await tools.write_file({ path, content: text.replace('"lodash"', '"lodash-es"') })
      }
      await tools.write_file({ path: 'new/x.txt', content: 'x\\n' })
      return tools.peek_stage({})`)
    expect(r.ok, JSON.stringify(r.error)).toBe(true)
    expect(r.value).toBe(0)
    expect(r.applied).toBe('applied')
    expect(r.changes).toHaveLength(22)
    const want: Record<string, string> = { ...FILES, 'new/x.txt': 'x\n' }
    for (const [rel, text] of Object.entries(want)) if (rel.startsWith('src/')) want[rel] = text.replace('"lodash"', '"lodash-es"')
    const expected = workspace(want)
    expect(treeHash(root)).toBe(treeHash(expected))
  })
})

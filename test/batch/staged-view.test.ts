/**
 * A staged run (--dry-run, --atomic) sees the same tree as a direct one: the root lists, a glob walked
 * from the root finds what it finds in a direct run (.gitignore obeyed), `stat('.')` is a folder, and
 * messages name workspace-relative paths, never the host's. Before the fix the root's stat described its
 * /proc/self/fd link (a symlink), so a staged view's root was empty: `glob('**\/*.generated.ts')` found
 * nothing and a dry run of "delete the generated files" deleted nothing.
 */
import { describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { testRuntime } from '../support/runtime.js'
import { codeact, ownedWorkspace, program, treeHash, workspace } from './helpers.js'

const FILES = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  'top.ts': 'export const top = 1\n',
  'debug.log': 'ignored\n',
  'keep.log': 'kept\n',
  'dist/out.ts': 'ignored\n',
  'src/a.ts': 'export const a = 1\n',
  'src/gen/a.generated.ts': '// generated\n',
  'src/deep/b.generated.ts': '// generated\n',
}

const LOOK = `
const m = async (p) => { try { return await p } catch (e) { return e.code + ': ' + e.message } }
return {
  root: (await tools.list_dir({ path: '.' })).map((e) => e.name),
  statRoot: (await tools.stat({ path: '.' })).type,
  ts: await tools.glob({ pattern: '**/*.ts' }),
  logs: await tools.glob({ pattern: '*.log' }),
  all: await tools.glob({ pattern: '**/*', include_ignored: true }),
  missList: await m(tools.list_dir({ path: 'nope' })),
  missRemove: await m(tools.remove({ path: 'nope' })),
  missStat: await m(tools.stat({ path: 'nope' })),
  underFile: await m(tools.write_file({ path: 'top.ts/x', content: '' })),
}`

describe('a staged view sees the tree a direct run sees', () => {
  it('root listing, globs from the root, stat of the root: the same in direct, dry-run and atomic runs', async () => {
    const root = workspace(FILES)
    const before = treeHash(root)
    const answers: Record<string, Record<string, unknown>> = {}
    for (const changes of ['direct', 'dry-run', 'atomic'] as const) {
      const rt = await testRuntime({ workspace: { root } })
      const r = await rt.runCode(LOOK, changes === 'direct' ? {} : { changes })
      expect(r.error).toBeNull()
      answers[changes] = r.value as Record<string, unknown>
    }
    const direct = answers.direct!
    expect(direct.root).toEqual(['.git', '.gitignore', 'debug.log', 'dist', 'keep.log', 'src', 'top.ts'])
    expect(direct.statRoot).toBe('dir')
    expect(direct.ts).toEqual(['src/a.ts', 'src/deep/b.generated.ts', 'src/gen/a.generated.ts', 'top.ts'])
    expect(direct.logs).toEqual(['keep.log'])
    expect(direct.all).toContain('.git/HEAD')
    for (const staged of ['dry-run', 'atomic']) {
      const { underFile, ...rest } = answers[staged]!
      const { underFile: directUnderFile, ...directRest } = direct
      expect(rest, staged).toEqual(directRest)
      // Named relative to the workspace, as in a direct run.
      expect(String(underFile)).toMatch(/^ENOTDIR: top\.ts is not a folder/)
      expect(String(directUnderFile)).toMatch(/^ENOTDIR: top\.ts is not a folder/)
    }
    for (const answer of Object.values(answers)) expect(JSON.stringify(answer)).not.toContain(root)
    expect(treeHash(root)).toBe(before)
  })

  const cases: [string, string[]][] = [
    ['isolate', []],
    ['docker', ['--sandbox', 'docker', '--docker-pool-size', '0']],
  ]
  for (const [name, flags] of cases)
    it.skipIf(name === 'docker' && !dockerEngine.available)(
      `CLI --dry-run (${name}) of "delete every generated file" shows the deletions; the tree keeps every byte`,
      async () => {
        if (name === 'docker') await ensureImage()
        const root = name === 'docker' ? ownedWorkspace(FILES) : workspace(FILES)
        const before = treeHash(root)
        const job = program(`
const gen = await tools.glob({ pattern: '**/*.generated.ts' })
for (const path of gen) await tools.remove({ path })
return gen`)
        const r = codeact(['run', job, '--workspace', root, '--dry-run', '--typecheck=off', ...flags])
        expect(r.status).toBe(0)
        expect(r.stdout).toContain('--- a/src/deep/b.generated.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-// generated\n')
        expect(r.stdout).toContain('--- a/src/gen/a.generated.ts\n+++ /dev/null\n')
        expect(r.stdout).toContain('["src/deep/b.generated.ts","src/gen/a.generated.ts"]')
        expect(r.stderr).toContain('Dry run, nothing written: 0 would be modified, 0 would be created, 2 would be deleted')
        expect(treeHash(root)).toBe(before)
      },
      120_000,
    )
})

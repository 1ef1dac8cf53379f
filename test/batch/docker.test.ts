/**
 * The same batch features on the Docker backend: changes reported (the file tools, bash and the program's
 * own node:fs writes alike), limit flags, .gitignore in glob — and staged runs: --dry-run and --atomic
 * (--review: tty.test.ts) on a container whose workspace is an overlay of the real tree, under each
 * runtime (gVisor, which cannot serve an overlay mount: a copy of the tree); where no stage can be had,
 * the run is refused with EPERM saying why.
 */
import { execFileSync } from 'node:child_process'
import { chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine, dockerRuntimeCases } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { testRuntime } from '../support/runtime.js'
import { STATE_DIR, codeact, ownedWorkspace, program, treeHash } from './helpers.js'

describe.skipIf(!dockerEngine.available)('batch on Docker', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 300_000)

  it('reports changes made by the file tools, bash and the program’s own node:fs', async () => {
    const root = ownedWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'g\n', '.gitignore': 'ignored/\n', 'ignored/x.txt': 'x' })
    const rt = await testRuntime({ sandbox: 'docker', docker: { poolSize: 0 }, workspace: { root } })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'a.txt', content: 'A\\n' })
      await tools.bash({ command: 'rm gone.txt && echo c > c.txt' })
      const fs = require('node:fs')
      fs.writeFileSync('b.txt', 'B\\n')
      return await tools.glob({ pattern: '**/*.txt' })`)
    expect(r.error).toBeNull()
    expect(r.value).toEqual(['a.txt', 'b.txt', 'c.txt'])
    expect(r.changes).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'modified' },
      { path: 'c.txt', change: 'created' },
      { path: 'gone.txt', change: 'deleted' },
    ])
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('B\n')
  }, 120_000)

  it('--atomic on a container that never starts: nothing applied, and neither the container nor its overlay is left behind', async () => {
    // The real image with an entry point that never says ready: the staged start times out. (runc: under
    // gVisor the runner's entry point is set by the spec, and its stage is a copy, with no volume.)
    const silent = 'codeact-runner-silent:test'
    const dockerfile = `FROM codeact-runner:latest\nENTRYPOINT ["/opt/codeact/node", "-e", "setInterval(() => {}, 1e6)"]\n`
    execFileSync('docker', ['build', '-q', '-t', silent, '-'], { input: dockerfile, stdio: ['pipe', 'ignore', 'inherit'] })
    const root = ownedWorkspace(FILES)
    const before = treeHash(root)
    const rt = await testRuntime({
      sandbox: 'docker',
      docker: { poolSize: 0, image: silent, startTimeoutMs: 1_500 },
      workspace: { root },
      changes: 'atomic',
    })
    const r = await rt.runCode(`await tools.write_file({ path: 'src/a.ts', content: 'x' })`)
    expect(r.ok, r.observation).toBe(false)
    expect(r.error?.kind).toBe('sandbox_unavailable')
    expect(treeHash(root)).toBe(before)
    // Answered only once the failed container is gone, with its anonymous overlay volume.
    const docker_ = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim()
    expect(docker_('ps', '-aq', '--filter', `ancestor=${silent}`)).toBe('')
    const volumes = docker_('volume', 'ls', '-q', '--filter', 'label=codeact').split('\n').filter(Boolean)
    const ours = volumes.filter((v) => docker_('volume', 'inspect', '-f', '{{json .Options}}', v).includes(`lowerdir=${root},`))
    expect(ours).toEqual([])
    await rt.close()
    expect(stagesLeft()).toEqual([])
  }, 120_000)

  it('limit flags apply the same way', () => {
    const root = ownedWorkspace({ 'a.txt': 'a\n' })
    const r = codeact(
      ['run', '-', '--sandbox', 'docker', '--workspace', root, '--max-tool-calls', '3', '--typecheck=off', '--json'],
      'for (let i = 0; i < 5; i++) await tools.stat({ path: "a.txt" })',
    )
    const result = JSON.parse(r.stdout)
    expect(result.error.code).toBe('EDQUOT')
    expect(result.error.message).toContain('--max-tool-calls')
  }, 120_000)
})

const FILES = {
  'src/a.ts': 'import x from "lodash"\nexport const a = x\n',
  'src/b.ts': 'import { y } from "lodash"\nexport const b = y\n',
  'src/keep.ts': 'export const keep = 1\n',
  'old/legacy.ts': 'legacy\n',
  'old/deep/more.ts': 'more\n',
  'cache/stale.txt': 'stale\n',
  'cache/kept.txt': 'kept\n',
  'README.md': '# demo\n',
}

/** Every way a batch program writes on Docker: file tools, bash (a folder removed and made again), node:fs. */
const JOB = `
for (const path of await tools.glob({ pattern: 'src/**/*.ts' })) {
  const text = await tools.read_file({ path })
  if (text.includes('"lodash"')) await tools.write_file({ path, content: text.replaceAll('"lodash"', '"lodash-es"') })
}
if (!(await tools.read_file({ path: 'src/a.ts' })).includes('lodash-es')) throw new Error('the staged write is not visible')
await tools.edit_file({ path: 'README.md', old_string: '# demo', new_string: '# demo (ESM)' })
await tools.mkdir({ path: 'docs/notes' })
await tools.write_file({ path: 'docs/notes/migration.md', content: 'lodash -> lodash-es\\n' })
await tools.remove({ path: 'old', recursive: true })
const sh = await tools.bash({ command: 'grep -rl lodash-es src | sort; echo generated > src/gen.ts; rm src/keep.ts; rm -rf cache && mkdir cache && echo fresh > cache/kept.txt; test ! -e old && echo old-gone' })
const fs = require('node:fs')
fs.writeFileSync('src/fs.ts', 'export const viaFs = 1\\n')
if (fs.existsSync('src/keep.ts') || fs.readFileSync('cache/kept.txt', 'utf8') !== 'fresh\\n') throw new Error('bash changes are not visible to node:fs')
console.log(sh.stdout.trim())
return (await tools.glob({ pattern: '**/*' })).length`

const EXPECTED_DIFF =
  `--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# demo\n+# demo (ESM)\n` +
  `--- a/cache/kept.txt\n+++ b/cache/kept.txt\n@@ -1 +1 @@\n-kept\n+fresh\n` +
  `--- a/cache/stale.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-stale\n` +
  `--- /dev/null\n+++ b/docs/notes/migration.md\n@@ -0,0 +1 @@\n+lodash -> lodash-es\n` +
  `--- a/old/deep/more.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-more\n` +
  `--- a/old/legacy.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-legacy\n` +
  `--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-import x from "lodash"\n+import x from "lodash-es"\n export const a = x\n` +
  `--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n-import { y } from "lodash"\n+import { y } from "lodash-es"\n export const b = y\n` +
  `--- /dev/null\n+++ b/src/fs.ts\n@@ -0,0 +1 @@\n+export const viaFs = 1\n` +
  `--- /dev/null\n+++ b/src/gen.ts\n@@ -0,0 +1 @@\n+generated\n` +
  `--- a/src/keep.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const keep = 1\n`

function stagesLeft(): string[] {
  return readdirSync(STATE_DIR, { recursive: true })
    .filter((p) => String(p).split('/').length > 2)
    .map(String)
}

for (const runtime of dockerRuntimeCases) {
  const flags = [
    '--sandbox',
    'docker',
    '--docker-pool-size',
    '0',
    '--typecheck=off',
    ...(runtime.option.runtime ? ['--docker-runtime', runtime.option.runtime] : []),
  ]
  const docker = { poolSize: 0, ...runtime.option }

  // runc: the container's workspace is an overlay of the tree; gVisor (which cannot serve an overlay
  // mount): a copy of it. The same flags, the same results.
  describe.skipIf(runtime.skip !== undefined)(`staged runs on Docker (${runtime.name})`, () => {
    beforeAll(async () => {
      await ensureImage()
    }, 300_000)

    it('--dry-run: tools, bash and node:fs all see the staged view; the tree keeps every byte; the exact diff is printed', () => {
      const root = ownedWorkspace(FILES)
      const before = treeHash(root)
      const r = codeact(['run', program(JOB), '--workspace', root, '--dry-run', ...flags])
      expect(r.stderr).not.toContain('Error')
      expect(r.status).toBe(0)
      expect(treeHash(root)).toBe(before)
      expect(r.stdout.startsWith(EXPECTED_DIFF)).toBe(true)
      expect(r.stdout).toContain('src/a.ts\nsrc/b.ts\nold-gone')
      expect(r.stderr).toContain('Dry run, nothing written: 4 would be modified, 3 would be created, 4 would be deleted')
      expect(stagesLeft()).toEqual([])
    }, 120_000)

    it('--atomic: a failure at file N — a throw, a timeout, a memory kill — leaves every byte as it was', async () => {
      const files: Record<string, string> = {}
      for (let i = 0; i < 60; i++)
        files[`src/m${String(i).padStart(2, '0')}.ts`] = `import { f } from "./old"\nexport const v${i} = f(${i})\n`
      const tails: [string, Record<string, unknown>][] = [
        [`require('node:fs').writeFileSync('src/extra.ts', 'x'); throw new Error('file ' + path + ' broke')`, {}],
        [`await tools.bash({ command: 'rm -rf src/m0* && echo sh > src/sh.ts' }); for (;;) {}`, { limits: { timeoutMs: 4_000 } }],
        ['const hog = []; for (;;) hog.push(new Array(1e6).fill(i))', { limits: { memoryMb: 64, timeoutMs: 20_000 } }],
      ]
      for (const [tail, options] of tails) {
        const root = ownedWorkspace(files)
        const before = treeHash(root)
        const rt = await testRuntime({ sandbox: 'docker', docker, workspace: { root }, changes: 'atomic', ...options })
        const r = await rt.runCode(`
          let i = 0
          for (const path of (await tools.glob({ pattern: 'src/m*.ts' })).sort()) {
            const text = await tools.read_file({ path })
            await tools.write_file({ path, content: text.replace('./old', './new') })
            if (++i === 30) { ${tail} }
          }`)
        expect(r.ok).toBe(false)
        expect(r.applied).toBe('discarded')
        expect(r.observation).toContain('Nothing was applied (atomic run)')
        expect(treeHash(root)).toBe(before)
        await rt.close()
        expect(stagesLeft()).toEqual([])
      }
    }, 240_000)

    it('--atomic: a run that ends ok applies every change at once, modes kept', () => {
      const root = ownedWorkspace({ ...FILES, 'run.sh': '#!/bin/sh\necho old\n' })
      const { chmodSync } = require('node:fs') as typeof import('node:fs')
      chmodSync(`${root}/run.sh`, 0o755)
      const job = `${JOB.replace(/return[^\n]*$/, '')}
await tools.bash({ command: "sed -i s/old/new/ run.sh" })
return 'ok'`
      const r = codeact(['run', program(job), '--workspace', root, '--atomic', ...flags])
      expect(r.status).toBe(0)
      expect(r.stderr).toContain('Files: 5 modified, 3 created, 4 deleted')
      expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe('import x from "lodash-es"\nexport const a = x\n')
      expect(readFileSync(join(root, 'cache/kept.txt'), 'utf8')).toBe('fresh\n')
      expect(readdirSync(join(root, 'cache'))).toEqual(['kept.txt'])
      expect(readdirSync(root).sort()).toEqual(['README.md', 'cache', 'docs', 'run.sh', 'src'])
      expect(readFileSync(join(root, 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho new\n')
      expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755)
      expect(stagesLeft()).toEqual([])
    }, 120_000)

    it('where the stage cannot be mounted, --dry-run and --atomic are refused with EPERM saying why; nothing runs', () => {
      const parent = ownedWorkspace({})
      const root = join(parent, 'a,b')
      mkdirSync(root)
      writeFileSync(join(root, 'a.txt'), 'a\n')
      chownSync(root, 65534, 65534)
      chownSync(join(root, 'a.txt'), 65534, 65534)
      const before = treeHash(root)
      for (const flag of ['--dry-run', '--atomic']) {
        const job = program(`require('node:fs').writeFileSync('a.txt', 'pwned')`)
        const r = codeact(['run', job, '--workspace', root, flag, '--json', ...flags])
        expect(r.status).toBe(3)
        const result = JSON.parse(r.stdout)
        expect(result.error.code).toBe('EPERM')
        expect(result.error.message).toContain('which an overlay mount cannot take')
        expect(result.error.message).toContain('nothing ran')
        expect(treeHash(root)).toBe(before)
      }
      expect(stagesLeft()).toEqual([])
    }, 120_000)
  })
}

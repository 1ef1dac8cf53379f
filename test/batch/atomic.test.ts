/**
 * --atomic: every change lands only when the run ends ok; after a failure, a timeout, a memory kill, a
 * cancel or the call limit, every byte of the tree is as it was and the observation says nothing was applied.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { codeact, program, treeHash, workspace } from './helpers.js'

const N = 300

function repo(): string {
  const files: Record<string, string> = {}
  for (let i = 0; i < N; i++) files[`src/m${String(i).padStart(3, '0')}.ts`] = `import { f } from "./old"\nexport const v${i} = f(${i})\n`
  files['src/old.ts'] = 'export const f = (n: number) => n\n'
  files['scripts/build.sh'] = '#!/bin/sh\necho old\n'
  return workspace(files)
}

/** Rewrites every module, then does `tail` (which may fail) after file `at`. */
function job(at: number, tail: string): string {
  return `
const files = (await tools.glob({ pattern: 'src/m*.ts' })).sort()
let i = 0
for (const path of files) {
  const text = await tools.read_file({ path })
  await tools.write_file({ path, content: text.replace('./old', './new') })
  if (++i === ${at}) { ${tail} }
}
await tools.write_file({ path: 'src/new.ts', content: 'export const f = (n: number) => n * 2\\n' })
await tools.remove({ path: 'src/old.ts' })
return i`
}

describe('--atomic', () => {
  // Each ends as what it is: a memory kill after the program's first await was reported as a runtime
  // error ("unhandled promise rejection: Error: Promise was abandoned") before.
  const failures: [string, string, Record<string, unknown>, string][] = [
    ['a throw at file N', `throw new Error('file ' + path + ' broke')`, {}, 'runtime'],
    ['a timeout', 'for (;;) {}', { limits: { timeoutMs: 3_000 } }, 'timeout'],
    [
      'a memory kill',
      'const hog = []; for (;;) hog.push(new Array(1e6).fill(i))',
      { limits: { memoryMb: 32, timeoutMs: 20_000 } },
      'memory',
    ],
    ['the tool-call limit', 'for (;;) await tools.stat({ path })', { limits: { maxToolCalls: 2 * N } }, 'runtime'],
  ]
  for (const [what, tail, options, kind] of failures) {
    it(`leaves the tree exactly as it was after ${what}`, async () => {
      const root = repo()
      const before = treeHash(root)
      const rt = await testRuntime({ workspace: { root }, changes: 'atomic', ...options })
      const r = await rt.runCode(job(N / 2, tail))
      expect(r.ok).toBe(false)
      expect(r.error?.kind, r.error?.message).toBe(kind)
      expect(r.applied).toBe('discarded')
      // A timeout on a loaded machine may strike before file N: some changes were staged, none applied.
      expect(r.changes!.length).toBeGreaterThan(0)
      expect(r.changes!.length).toBeLessThanOrEqual(N / 2)
      expect(r.observation).toContain(
        `Nothing was applied (atomic run): the run did not end ok, so its ${r.changes!.length} staged change(s) were discarded; the workspace is exactly as before`,
      )
      expect(treeHash(root)).toBe(before)
    })
  }

  it('leaves the tree as it was when the caller cancels', async () => {
    const root = repo()
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root } })
    const controller = new AbortController()
    const running = rt.runCode(job(N / 2, `console.log('waiting'); await new Promise(() => {})`), {
      changes: 'atomic',
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(), 1_500)
    const r = await running
    expect(r.error?.kind).toBe('aborted')
    expect(r.applied).toBe('discarded')
    expect(treeHash(root)).toBe(before)
  })

  it.skipIf(!bwrap.available)('discards what bash wrote, too', async () => {
    const root = repo()
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root }, changes: 'atomic' })
    const r = await rt.runCode(`
      const sh = await tools.bash({ command: 'sed -i s/old/new/ src/m000.ts && rm src/old.ts && echo x > made.txt && cat src/m000.ts' })
      console.log(sh.stdout)
      throw new Error('changed my mind')`)
    expect(r.logs[0]?.text).toContain('./new')
    expect(r.changes?.map((c) => `${c.change} ${c.path}`).sort()).toEqual([
      'created made.txt',
      'deleted src/old.ts',
      'modified src/m000.ts',
    ])
    expect(treeHash(root)).toBe(before)
  })

  it('applies everything when the run ends ok, keeping file modes', async () => {
    const root = repo()
    chmodSync(join(root, 'scripts/build.sh'), 0o755)
    const rt = await testRuntime({ workspace: { root }, changes: 'atomic' })
    const r = await rt.runCode(
      job(-1, '').replace('return i', `await tools.write_file({ path: 'scripts/build.sh', content: '#!/bin/sh\\necho new\\n' })\nreturn i`),
    )
    expect(r.error).toBeNull()
    expect(r.applied).toBe('applied')
    for (let i = 0; i < N; i++) expect(readFileSync(join(root, `src/m${String(i).padStart(3, '0')}.ts`), 'utf8')).toContain('./new')
    expect(() => statSync(join(root, 'src/old.ts'))).toThrow()
    expect(readFileSync(join(root, 'src/new.ts'), 'utf8')).toContain('n * 2')
    expect(statSync(join(root, 'scripts/build.sh')).mode & 0o777).toBe(0o755)
    expect(r.observation).toContain(`Changes (applied together, atomic run) (${N + 3}: ${N + 1} modified, 1 created, 1 deleted)`)
  })

  it('CLI: a failing --atomic run exits 1 and says nothing was applied', () => {
    const root = repo()
    writeFileSync(join(root, 'note.txt'), 'n\n')
    const before = treeHash(root)
    const r = codeact(['run', program(job(10, `throw new Error('boom')`)), '--workspace', root, '--atomic', '--typecheck=off'])
    expect(r.status).toBe(1)
    expect(r.stdout).toContain('Nothing was applied (atomic run)')
    expect(r.stderr).toContain('Nothing applied (atomic: the run did not end ok; the workspace is as it was). Staged: 10 modified')
    expect(treeHash(root)).toBe(before)
  })
})

describe.skipIf(!bwrap.available)('--atomic: bash in the staged view cannot change a read-only path', () => {
  const attacks = [
    'echo pwned > vendor/lib.js',
    'mv vendor vendor2 && mkdir vendor && echo pwned > vendor/lib.js',
    'rm -rf vendor; mkdir -p vendor; echo pwned > vendor/lib.js',
    'cd vendor && ln -sf /etc/passwd lib.js',
    'echo pwned > vendor/new.js',
    'touch -d 2001-01-01 vendor/lib.js; chmod 777 vendor/lib.js',
  ]
  for (const command of attacks) {
    it(command, async () => {
      const root = workspace({ 'vendor/lib.js': 'v1\n', 'src/a.ts': 'a\n' })
      const vendorBefore = treeHash(join(root, 'vendor'))
      const rt = await testRuntime({ workspace: { root, readOnly: ['vendor'] }, changes: 'atomic' })
      const r = await rt.runCode(`
        await tools.write_file({ path: 'src/a.ts', content: 'b\\n' })
        const sh = await tools.bash({ command: ${JSON.stringify(command)} })
        return sh.exit_code`)
      expect(treeHash(join(root, 'vendor'))).toBe(vendorBefore)
      if (r.applied === 'applied') expect(r.changes?.some((c) => c.path.startsWith('vendor'))).toBe(false)
      else expect(r.observation).toMatch(/touch read-only paths|Nothing was applied/)
    })
  }
})

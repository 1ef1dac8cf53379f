/**
 * No silent half-applied tree. `codeact run --workspace` is all or nothing by default: a run that fails
 * after writing leaves every byte as it was. With `--no-atomic` (and in the library's direct runs) a failed
 * run that changed files says so in its first line, with the count and the command that undoes them — and
 * that command, run in the git repository, gives back the tree. The same on Docker.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { testRuntime } from '../support/runtime.js'
import { codeact, ownedWorkspace, program, treeHash, workspace } from './helpers.js'

const FILES = { 'src/a.ts': 'export const a = 1\n', 'src/b.ts': 'export const b = 2\n', 'src/c.ts': 'export const c = 3\n' }

// A rename that writes two files and a new one, then trips over its own mistake.
const HALFWAY = `
for (const path of ['src/a.ts', 'src/b.ts']) {
  const text = await tools.read_file({ path })
  await tools.write_file({ path, content: text.replace('export const', 'export let') })
}
await tools.write_file({ path: 'src/new dir/index.ts', content: "export * from '../a'\\n" })
const missing = await tools.read_file({ path: 'src/zz.ts' })
return missing`

function gitRepo(files: Record<string, string>, make: (files: Record<string, string>) => string = workspace): string {
  const root = make(files)
  git(root, 'init', '-q')
  git(root, 'add', '.')
  git(root, 'commit', '-qm', 'base')
  return root
}

function git(root: string, ...args: string[]): string {
  const config = ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'safe.directory=*']
  return execFileSync('git', ['-C', root, ...config, ...args], { encoding: 'utf8', stdio: 'pipe' })
}

/** Every byte, mode and entry as committed: nothing modified, nothing new. */
function clean(root: string): string {
  return git(root, 'status', '--porcelain', '--untracked-files=all')
}

/** The shell commands in the first line's backquotes, run in `root`. */
function runUndo(firstLine: string, root: string): void {
  for (const [, command] of firstLine.matchAll(/`((?:git|rm) [^`]+)`/g))
    execFileSync('sh', ['-c', command!], {
      cwd: root,
      // The Docker workspace belongs to another user (the container's): git asks to be told it is safe.
      env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' },
    })
}

describe('a failed batch run at the command line', () => {
  it('changes nothing by default: all or nothing, and it says so', () => {
    const root = gitRepo(FILES)
    const before = treeHash(root)
    const r = codeact(['run', program(HALFWAY), '--workspace', root, '--typecheck=off'])
    expect(r.status).toBe(1)
    expect(treeHash(root)).toBe(before)
    expect(r.stdout).toContain('Nothing was applied (atomic run): the run did not end ok')
    // The writes were discarded with the stage: the list of completed calls does not call them done.
    expect(r.stdout).toContain('took effect unless they only wrote to the workspace, whose changes were discarded')
    expect(r.stderr).toContain('Nothing applied (atomic: the run did not end ok; the workspace is as it was)')
  })

  it('with --no-atomic says in its first line how many files changed and how to undo them; the undo works', () => {
    const root = gitRepo(FILES)
    const r = codeact(['run', program(HALFWAY), '--workspace', root, '--typecheck=off', '--no-atomic'])
    expect(r.status).toBe(1)
    expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe('export let a = 1\n')
    const first = r.stdout.split('\n')[0]!
    expect(first).toBe(
      "3 files and 1 folder changed before the error and stay changed — undo: `git checkout -- src/a.ts src/b.ts` and `rm -r -- 'src/new dir/'`; run it all or nothing (--atomic, changes: 'atomic') and a failed run changes nothing.",
    )
    expect(clean(root)).not.toBe('')
    runUndo(first, root)
    expect(clean(root)).toBe('')
  })

  it('--no-atomic does not combine with --atomic or --dry-run', () => {
    const r = codeact(['run', program('return 1'), '--workspace', workspace(), '--no-atomic', '--atomic'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--no-atomic applies each change as it is made')
  })
})

describe("a failed library run (direct, the library's default)", () => {
  it('puts the changed files and the undo first in the observation, before the console lines', async () => {
    const root = gitRepo(FILES)
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`console.log('renaming')\n${HALFWAY}`)
    expect(r.ok).toBe(false)
    expect(r.observation).toMatch(
      /^3 files and 1 folder changed before the error and stay changed — undo: `git checkout -- src\/a\.ts src\/b\.ts`/,
    )
    expect(r.observation.indexOf('renaming')).toBeGreaterThan(r.observation.indexOf('undo:'))
  })

  it('after a timeout too, and caps the paths in the undo command', async () => {
    const root = gitRepo(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, `${i}\n`])))
    const rt = await testRuntime({ workspace: { root }, limits: { timeoutMs: 500 } })
    const r = await rt.runCode(
      `for (let i = 0; i < 8; i++) await tools.write_file({ path: 'f' + i + '.txt', content: 'x' })\nwhile (true) {}`,
    )
    expect(r.error?.kind).toBe('timeout')
    expect(r.observation.split('\n')[0]).toBe(
      "8 files changed before the error and stay changed — undo: `git checkout -- f0.txt f1.txt f2.txt f3.txt f4.txt …` (all 8 are listed under Changes); run it all or nothing (--atomic, changes: 'atomic') and a failed run changes nothing.",
    )
  })

  it('says nothing of the kind when the run ends ok, or changed nothing', async () => {
    const root = gitRepo(FILES)
    const rt = await testRuntime({ workspace: { root } })
    expect((await rt.runCode(`await tools.write_file({ path: 'src/a.ts', content: 'x' })`)).observation).not.toContain('undo:')
    expect((await rt.runCode(`await tools.read_file({ path: 'src/zz.ts' })`)).observation).not.toContain('undo:')
  })
})

describe.skipIf(!dockerEngine.available)('a failed batch run on Docker', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 300_000)

  it('changes nothing by default, and with --no-atomic says how to undo what it changed', () => {
    const root = gitRepo(FILES, ownedWorkspace)
    const before = treeHash(root)
    const flags = ['--workspace', root, '--typecheck=off', '--sandbox', 'docker', '--docker-pool-size', '0']
    const atomic = codeact(['run', program(HALFWAY), ...flags])
    expect(atomic.status, atomic.stderr).toBe(1)
    expect(treeHash(root)).toBe(before)
    const direct = codeact(['run', program(HALFWAY), ...flags, '--no-atomic'])
    expect(direct.status, direct.stderr).toBe(1)
    const first = direct.stdout.split('\n')[0]!
    expect(first).toMatch(/^3 files and 1 folder changed before the error and stay changed — undo: `git checkout -- src\/a\.ts src\/b\.ts`/)
    expect(clean(root)).not.toBe('')
    runUndo(first, root)
    expect(clean(root)).toBe('')
  }, 180_000)
})

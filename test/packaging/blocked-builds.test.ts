/**
 * An isolated-vm that cannot load is said at `createRuntime`, in one line, with the fix in the words of the
 * package manager that installed it. How it happens depends on the line: pnpm (dependency builds blocked
 * by default) takes the highest isolated-vm the range allows, 7.0.2, which has binaries for Node 24 and 26
 * only; on Node 20 the right one, 5.0.4, has none and must compile, which blocked builds and
 * `--ignore-scripts` prevent. 6.2.0 and 7.0.2 load without their install script on their own lines.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshProject, LINE, ok, packTarball, PNPM, removeAll, run } from './project.js'

const PROGRAM = `import { createRuntime } from 'codeact'
const rt = await createRuntime()
const r = await rt.runCode('return 6 * 7')
console.log('value', r.value)
await rt.close()
`
/** The isolated-vm each line needs (sandbox/isolate/native.ts says the same to the user). */
const WANTED = LINE >= 24 ? '7.0.2' : LINE >= 22 ? '6.2.0' : '5.0.4'

let tarball: string
const dirs: string[] = []
beforeAll(() => {
  tarball = packTarball()
})
afterAll(() => removeAll(join(tarball, '..'), ...dirs))

function project(name: string, manifest: Record<string, unknown> = {}): string {
  const dir = freshProject(name, manifest)
  dirs.push(dir)
  writeFileSync(join(dir, 'main.mjs'), PROGRAM)
  return dir
}

/** The message of the DependencyError createRuntime threw, or the value the program printed. */
function outcome(dir: string): string {
  const r = run(dir, process.execPath, ['main.mjs'])
  if (r.status === 0) return r.stdout.trim()
  const line = r.stderr.split('\n').find((l) => l.startsWith('DependencyError: '))
  return line ? line.slice('DependencyError: '.length) : `exit ${r.status}: ${r.stderr}`
}

describe(`on Node ${LINE}, an isolated-vm that cannot load is one line at createRuntime`, () => {
  it('pnpm with its defaults (builds blocked): runs where 7.0.2 has a binary, else says which version to pin and how', () => {
    const dir = project('pnpm-blocked')
    ok(dir, 'npx', [...PNPM, 'add', tarball])
    if (LINE >= 24) expect(outcome(dir)).toBe('value 42')
    else
      expect(outcome(dir)).toBe(
        `isolated-vm 7.0.2 has no build for Node ${LINE} (it needs ${WANTED}): add "pnpm": { "overrides": { "isolated-vm": "${WANTED}" } } to package.json, then \`pnpm install\``,
      )
  }, 300_000)

  it('pnpm pinned to the line’s isolated-vm, builds still blocked: runs, or (a version that must compile) says to approve the build', () => {
    const dir = project('pnpm-pinned', { pnpm: { overrides: { 'isolated-vm': WANTED } } })
    ok(dir, 'npx', [...PNPM, 'add', tarball])
    const notBuilt = "isolated-vm's native module was not built (its install script was blocked or failed): run `pnpm approve-builds`"
    // The command line, run as a pnpm user runs it: the same line, in the CLI's words, and nothing else.
    writeFileSync(join(dir, 'program.ts'), 'return 6 * 7\n')
    const cli = run(dir, 'npx', [...PNPM, 'exec', 'codeact', 'run', 'program.ts'])
    if (LINE >= 22) {
      expect(outcome(dir)).toBe('value 42')
      expect(cli.stdout + cli.stderr).toMatch(/42/)
    } else {
      expect(outcome(dir)).toBe(notBuilt)
      expect(cli.stderr.trim()).toBe(`codeact: ${notBuilt}`)
      expect(cli.status).not.toBe(0)
    }
  }, 300_000)

  it('npm install --ignore-scripts: runs where the binary ships prebuilt, else says to rebuild', () => {
    const dir = project('npm-ignore-scripts')
    ok(dir, 'npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball])
    if (LINE >= 22) expect(outcome(dir)).toBe('value 42')
    else
      expect(outcome(dir)).toBe(
        "isolated-vm's native module was not built (its install script was blocked or failed): run `npm rebuild isolated-vm`",
      )
  }, 300_000)
})

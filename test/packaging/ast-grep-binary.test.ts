/**
 * ast_grep's engine, @ast-grep/napi, is a native module that ships prebuilt per platform (optional
 * dependencies, no install script): it loads from codeact's own dependencies with every dependency build
 * blocked — pnpm's default and `npm install --ignore-scripts` — on every Node line.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshProject, ok, packTarball, PNPM, removeAll, run } from './project.js'

/** Parses and rewrites through the napi that codeact itself resolves (pnpm gives a project only its direct dependencies). */
const CHECK = `import { createRequire } from 'node:module'
const fromCodeact = createRequire(createRequire(import.meta.url).resolve('codeact/package.json'))
const { parse, Lang } = fromCodeact('@ast-grep/napi')
const call = parse(Lang.TypeScript, 'util\\n  .joinValues(a)').root().find('$O.joinValues($$$A)')
console.log(call.getMatch('O').text(), call.range().end.line)
`

let tarball: string
const dirs: string[] = []
beforeAll(() => {
  tarball = packTarball()
})
afterAll(() => removeAll(join(tarball, '..'), ...dirs))

const installs = {
  'pnpm with its defaults (builds blocked)': (dir: string) => ok(dir, 'npx', [...PNPM, 'add', tarball]),
  'npm install --ignore-scripts': (dir: string) => ok(dir, 'npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball]),
}

describe.each(Object.keys(installs) as (keyof typeof installs)[])('@ast-grep/napi installed by %s', (how) => {
  it('loads its prebuilt binary and matches across a line break', () => {
    const dir = freshProject('ast-grep-binary')
    dirs.push(dir)
    installs[how](dir)
    writeFileSync(join(dir, 'check.mjs'), CHECK)
    const r = run(dir, process.execPath, ['check.mjs'])
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('util 1')
  }, 600_000)
})

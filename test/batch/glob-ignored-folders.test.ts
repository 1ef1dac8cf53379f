/**
 * glob does not scan what .gitignore ignores, as ripgrep and ast-grep do: a repository whose node_modules
 * holds more entries than a glob may scan (200,000) still globs its own files, directly and in a staged run.
 * Before, every glob from the root walked node_modules too and failed with E2BIG ("scans more than
 * 200000 entries"). With include_ignored the scan cap still holds. (Built on a tmpfs where there is one:
 * 200,000 files are made in seconds there.)
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { testRuntime } from '../support/runtime.js'

const root = realpathSync(mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'codeact-glob-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function repo(): void {
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n')
  for (const f of ['src/a.ts', 'src/deep/b.ts', 'c.ts', 'packages/x/node_modules/y/z.ts', 'packages/x/src/x.ts']) {
    mkdirSync(join(root, f, '..'), { recursive: true })
    writeFileSync(join(root, f), 'export {}\n')
  }
  for (let p = 0; p < 401; p++) {
    const dir = join(root, 'node_modules', `pkg${p}`)
    mkdirSync(dir, { recursive: true })
    for (let f = 0; f < 500; f++) closeSync(openSync(join(dir, `m${f}.js`), 'w'))
  }
}

describe('glob in a repository with a huge ignored folder', () => {
  it('finds its own files without scanning node_modules (direct and dry-run); include_ignored still has the cap', async () => {
    repo()
    const own = ['c.ts', 'packages/x/src/x.ts', 'src/a.ts', 'src/deep/b.ts']
    for (const changes of ['apply', 'dry-run'] as const) {
      const rt = await testRuntime({ workspace: { root }, changes })
      const r = await rt.runCode(`
        const all = await tools.glob({ pattern: '**/*.ts' }).catch((e) => e.code + ': ' + e.message)
        const src = await tools.glob({ pattern: 'src/**/*.ts' })
        const everything = await tools.glob({ pattern: '**/*.js', include_ignored: true }).catch((e) => e.code)
        return { all, src, everything }`)
      expect(r.error, changes).toBeNull()
      expect(r.value, changes).toEqual({ all: own, src: ['src/a.ts', 'src/deep/b.ts'], everything: 'E2BIG' })
    }
  }, 240_000)
})

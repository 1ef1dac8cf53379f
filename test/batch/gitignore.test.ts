/** glob skips what .gitignore ignores and .git/ itself, like ripgrep and ast-grep; include_ignored asks for all. */
import { describe, expect, it } from 'vitest'
import { gitignoreRules } from '../../sandbox/workspace/gitignore.js'
import { testRuntime } from '../support/runtime.js'
import { workspace } from './helpers.js'

const FILES = {
  '.gitignore': 'node_modules/\ndist\n*.log\n!keep.log\n/top-only.txt\nbuild/**/*.map\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config': '[core]\n',
  '.git/info/exclude': 'secret.txt\n',
  'secret.txt': 's',
  'top-only.txt': 't',
  'src/top-only.txt': 'nested: not anchored to src, kept',
  'src/index.ts': 'x',
  'src/debug.log': 'x',
  'src/keep.log': 'x',
  'src/generated/.gitignore': '*\n!.gitignore\n!wanted.ts\n',
  'src/generated/noise.ts': 'x',
  'src/generated/wanted.ts': 'x',
  'node_modules/lodash/index.js': 'x',
  'packages/app/node_modules/react/index.js': 'x',
  'packages/app/dist/app.js': 'x',
  'packages/app/src/app.ts': 'x',
  'build/out/a.js': 'x',
  'build/out/a.js.map': 'x',
}

describe('glob and .gitignore', () => {
  it('skips ignored files and .git/, keeps negated and unanchored ones', async () => {
    const rt = await testRuntime({ workspace: { root: workspace(FILES) } })
    const r = await rt.runCode(`return await tools.glob({ pattern: '**/*' })`)
    expect(r.value).toEqual([
      '.gitignore',
      'build/out/a.js',
      'packages/app/src/app.ts',
      'src/generated/.gitignore',
      'src/generated/wanted.ts',
      'src/index.ts',
      'src/keep.log',
      'src/top-only.txt',
    ])
  })

  it('a pattern that starts in a subfolder still obeys the .gitignore files above it', async () => {
    const rt = await testRuntime({ workspace: { root: workspace(FILES) } })
    const r = await rt.runCode(`return await tools.glob({ pattern: 'packages/app/**/*.{js,ts}' })`)
    expect(r.value).toEqual(['packages/app/src/app.ts'])
  })

  it('include_ignored: true matches everything, .git/ included', async () => {
    const rt = await testRuntime({ workspace: { root: workspace(FILES) } })
    const r = await rt.runCode(`return await tools.glob({ pattern: '**/*', include_ignored: true })`)
    expect(r.value).toHaveLength(Object.keys(FILES).length)
    expect(r.value).toContain('.git/HEAD')
    expect(r.value).toContain('node_modules/lodash/index.js')
  })

  it('the SDK text tells the model about it', async () => {
    const rt = await testRuntime({ workspace: { root: workspace({}) } })
    const sdk = rt.sdk.declarations()
    expect(sdk).toContain('include_ignored?: boolean')
    expect(sdk).toMatch(/Skips what \.gitignore files .* ignore and the \.git\/ folder itself/)
  })

  it('a folder that is ignored hides everything under it, even a negated file (as in git)', () => {
    const rules = gitignoreRules(new Map([['', 'logs/\n!logs/important.txt\n']]))
    expect(rules.ignored('logs/important.txt', false)).toBe(true)
    expect(rules.ignored('logs', true)).toBe(true)
    expect(rules.ignored('src/logs.txt', false)).toBe(false)
  })
})

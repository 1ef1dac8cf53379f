/**
 * `ast_grep`, the syntax-aware edit: on a real tree (zod's 332 TypeScript sources copied from node_modules)
 * a rename gives byte for byte the tree the ast-grep CLI gives for the same rule, in a direct run, under
 * --atomic and on Docker; --dry-run writes nothing and shows the diff; a read-only file refuses the whole
 * rewrite; a pattern that does not parse is an observation naming the fix.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { testRuntime } from '../support/runtime.js'
import { codeact, program, treeHash, workspace } from './helpers.js'

const ZOD_SRC = join(process.cwd(), 'node_modules/zod/src')
const AST_GREP = join(process.cwd(), 'node_modules/.bin/ast-grep')

/** The rename of docs/batch-edits.md: every identifier spelled joinValues, and nothing in comments or strings. */
const KINDS = ['identifier', 'property_identifier', 'shorthand_property_identifier_pattern', 'shorthand_property_identifier']
const RULE = { regex: '^joinValues$', any: KINDS.map((kind) => ({ kind })) }
const RENAME = `
const r = await tools.ast_grep({ rule: ${JSON.stringify(RULE)}, rewrite: 'joinList', lang: 'typescript' })
console.log(r.total_matches + ' matches, ' + (r.changed ?? []).length + ' files')
return r.changed?.length`

/** A copy of zod's sources in a fresh workspace. */
function zodTree(): string {
  const root = workspace()
  cpSync(ZOD_SRC, root, { recursive: true })
  return root
}

/** The same rename by the ast-grep CLI, on another copy: the expected tree. */
function cliRenamed(): string {
  const root = zodTree()
  const rule = `id: rename\nlanguage: TypeScript\nrule:\n  regex: ^joinValues$\n  any:\n${KINDS.map((k) => `    - kind: ${k}\n`).join('')}fix: joinList\n`
  writeFileSync(join(root, '..', `${root.split('/').pop()}.yml`), rule)
  const r = spawnSync(AST_GREP, ['scan', '-r', join(root, '..', `${root.split('/').pop()}.yml`), '-U', '.'], {
    cwd: root,
    encoding: 'utf8',
  })
  expect(r.status, r.stderr).toBe(0)
  return treeHash(root)
}

let expected: string
let original: string
beforeAll(() => {
  expected = cliRenamed()
  original = treeHash(zodTree())
})

describe('ast_grep rename on a real tree, against the ast-grep CLI', () => {
  it('a direct run gives the CLI’s tree byte for byte, and the change list names every file', () => {
    const root = zodTree()
    const r = codeact(['run', program(RENAME), '--workspace', root, '--json'])
    expect(r.status, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { value: number; changes: { path: string; change: string }[] }
    expect(treeHash(root)).toBe(expected)
    expect(expected).not.toBe(original)
    expect(out.changes.length).toBe(out.value)
    expect(out.changes).toContainEqual({ path: 'v4/core/util.ts', change: 'modified' })
  }, 120_000)

  it('--dry-run writes nothing and shows the diff of the rename', () => {
    const root = zodTree()
    const r = codeact(['run', program(RENAME), '--workspace', root, '--dry-run'])
    expect(r.status, r.stderr).toBe(0)
    expect(treeHash(root)).toBe(original)
    expect(r.stdout).toContain('--- a/v4/core/util.ts\n+++ b/v4/core/util.ts\n')
    expect(r.stdout).toMatch(/^-export function joinValues/m)
    expect(r.stdout).toMatch(/^\+export function joinList/m)
  }, 120_000)

  it('--atomic applies the CLI’s tree when the run ends ok, and nothing when it fails after the rewrite', () => {
    const ok = zodTree()
    const r = codeact(['run', program(RENAME), '--workspace', ok, '--atomic'])
    expect(r.status, r.stderr).toBe(0)
    expect(treeHash(ok)).toBe(expected)

    const failed = zodTree()
    const f = codeact([
      'run',
      program(`${RENAME.replace('return', 'const n =')}\nthrow new Error('stop after the rewrite')`),
      '--workspace',
      failed,
      '--atomic',
    ])
    expect(f.status).not.toBe(0)
    expect(f.stdout + f.stderr).toContain('Nothing was applied')
    expect(treeHash(failed)).toBe(original)
  }, 120_000)
})

describe('ast_grep matches the tree, not the text', () => {
  const SOURCE = [
    "import { joinValues } from './util'",
    '// joinValues is documented here',
    "const label = 'joinValues'",
    'const { joinValues: jv } = util',
    'const out = util',
    '  .joinValues(["a", "é"], ", ")',
    'export const x = jv(util.joinValues(a, b))',
    '',
  ].join('\n')

  it('finds calls across line breaks with file, 1-based range, text and captures; comments and strings never match', async () => {
    const root = workspace({ 'src/a.ts': SOURCE, 'src/b.js': 'util.joinValues(1)\n', 'notes.md': 'util.joinValues(x)\n' })
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`return await tools.ast_grep({ pattern: '$OBJ.joinValues($$$ARGS)' })`)
    expect(r.error).toBeNull()
    const value = r.value as { matches: unknown[]; total_matches: number; files_scanned: number }
    expect(value.files_scanned).toBe(2)
    expect(value.total_matches).toBe(3)
    expect(value.matches[0]).toEqual({
      file: 'src/a.ts',
      range: { start: { line: 5, column: 13 }, end: { line: 6, column: 32 } },
      text: 'util\n  .joinValues(["a", "é"], ", ")',
      captures: { OBJ: 'util', ARGS: ['["a", "é"]', '", "'] },
    })
    expect(value.matches[2]).toMatchObject({ file: 'src/b.js', captures: { OBJ: 'util', ARGS: ['1'] } })
  })

  it('renames declarations, imports, destructured and member references and leaves comments and strings', async () => {
    const root = workspace({ 'src/a.ts': SOURCE })
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(RENAME)
    expect(r.error).toBeNull()
    expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe(
      SOURCE.replace('{ joinValues }', '{ joinList }')
        .replace('{ joinValues: jv }', '{ joinList: jv }')
        .replace('  .joinValues(', '  .joinList(')
        .replace('util.joinValues(a', 'util.joinList(a'),
    )
    expect(r.changes).toEqual([{ path: 'src/a.ts', change: 'modified' }])
  })

  it('a rewrite template with captures gives what the CLI gives, indentation included', async () => {
    const text = 'function f() {\n  if (x) {\n    foo(a,\n      b)\n  }\n  foo(1)\n  foo(foo(2))\n}\n'
    const ours = workspace({ 'a.ts': text })
    const theirs = workspace({ 'a.ts': text })
    const template = 'wrap(\n  $$$ARGS\n)'
    const rt = await testRuntime({ workspace: { root: ours } })
    const r = await rt.runCode(`return await tools.ast_grep({ pattern: 'foo($$$ARGS)', rewrite: ${JSON.stringify(template)} })`)
    expect(r.error).toBeNull()
    execFileSync(AST_GREP, ['run', '-p', 'foo($$$ARGS)', '-r', template, '-U', 'a.ts'], { cwd: theirs, stdio: 'pipe' })
    expect(readFileSync(join(ours, 'a.ts'), 'utf8')).toBe(readFileSync(join(theirs, 'a.ts'), 'utf8'))
  })
})

describe('ast_grep refusals', () => {
  it('a rewrite that would change a read-only file is refused (EROFS) with nothing written; a find there is fine', async () => {
    const root = zodTree()
    const rt = await testRuntime({ workspace: { root, readOnly: ['v4/locales'] } })
    const r = await rt.runCode(RENAME)
    expect(r.ok).toBe(false)
    expect(r.calls[0]?.error?.code).toBe('EROFS')
    expect(r.observation).toMatch(/v4\/locales\/[a-zA-Z-]+\.ts" is read-only and the rewrite would change it; nothing was written/)
    expect(treeHash(root)).toBe(original)
    const find = await rt.runCode(
      `return (await tools.ast_grep({ pattern: 'util.joinValues($$$A)', paths: ['v4/locales'] })).total_matches`,
    )
    expect(find.value).toBeGreaterThan(10)
  }, 60_000)

  it('the policy refuses a rewrite of a read-only folder and any path outside the workspace before the tool runs', async () => {
    const root = workspace({ 'vendor/x.ts': 'old()\n', 'src/y.ts': 'old()\n' })
    const rt = await testRuntime({ workspace: { root, readOnly: ['vendor'] } })
    const ro = await rt.runCode(`return await tools.ast_grep({ pattern: 'old()', rewrite: 'next()', paths: ['vendor/**/*.ts'] })`)
    expect(ro.calls[0]?.error?.code).toBe('EROFS')
    const out = await rt.runCode(`return await tools.ast_grep({ pattern: 'old()', paths: ['../**/*.ts'] })`)
    expect(out.calls[0]?.error?.code).toBe('EACCES')
    expect(readFileSync(join(root, 'vendor/x.ts'), 'utf8')).toBe('old()\n')
  })

  it('a pattern that does not parse is an observation naming the fix, before any file is touched', async () => {
    const root = workspace({ 'a.ts': 'foo(1)\n' })
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`return await tools.ast_grep({ pattern: 'foo(', rewrite: 'bar(' })`)
    expect(r.calls[0]?.error?.code).toBe('EINVAL')
    expect(r.observation).toContain('the pattern "foo(" does not parse as TypeScript')
    expect(r.observation).toContain('$$$NAME for a list')
    const rule = await rt.runCode(`return await tools.ast_grep({ rule: { kind: 'no_such_kind' } })`)
    expect(rule.calls[0]?.error?.code).toBe('EINVAL')
    expect(rule.observation).toContain('Kind `no_such_kind` is invalid')
    expect(readFileSync(join(root, 'a.ts'), 'utf8')).toBe('foo(1)\n')
  })

  it('in a staged runtime a native call that rewrites is refused (EPERM), a native find answers', async () => {
    const root = workspace({ 'a.ts': 'old()\n' })
    const rt = await testRuntime({ workspace: { root }, changes: 'atomic' })
    const rewrite = (await rt.callTool('ast_grep', { pattern: 'old()', rewrite: 'next()' })) as { ok: boolean; code?: string }
    expect(rewrite.ok).toBe(false)
    expect(rewrite.code).toBe('EPERM')
    const find = (await rt.callTool('ast_grep', { pattern: 'old()' })) as { ok: boolean; value?: { total_matches: number } }
    expect(find.value?.total_matches).toBe(1)
    expect(readFileSync(join(root, 'a.ts'), 'utf8')).toBe('old()\n')
  })

  it('too many files is E2BIG naming max_files', async () => {
    const root = zodTree()
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`return await tools.ast_grep({ pattern: 'x', max_files: 10 })`)
    expect(r.calls[0]?.error?.code).toBe('E2BIG')
    expect(r.observation).toContain('over max_files (10); narrow paths or raise max_files')
  })
})

describe.skipIf(!dockerEngine.available)('ast_grep on Docker: the tool on the host, the program in the container', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 300_000)

  const owned = (): string => {
    const root = zodTree()
    execFileSync('chown', ['-R', '65534:65534', root])
    return root
  }

  it('a direct run and --atomic give the CLI’s tree; --dry-run writes nothing', () => {
    for (const mode of ['', '--atomic']) {
      const root = owned()
      const r = codeact(['run', program(RENAME), '--workspace', root, '--sandbox', 'docker', ...(mode ? [mode] : [])])
      expect(r.status, r.stderr).toBe(0)
      expect(treeHash(root), mode).toBe(expected)
    }
    const root = owned()
    const before = treeHash(root)
    const r = codeact(['run', program(RENAME), '--workspace', root, '--sandbox', 'docker', '--dry-run'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^\+export function joinList/m)
    expect(treeHash(root)).toBe(before)
  }, 300_000)
})

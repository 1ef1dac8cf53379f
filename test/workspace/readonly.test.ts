/** EROFS: a read-only subfolder inside a writable workspace, and a wholly read-only workspace. Nothing changes on disk. */
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { codeOf, harness, type Harness } from './helpers.js'
import { bwrap } from '../support/bwrap.js'

let h: Harness
afterEach(() => h.cleanup())

function tree(root: string): void {
  mkdirSync(join(root, 'src/vendor/lib'), { recursive: true })
  writeFileSync(join(root, 'src/app.ts'), 'app')
  writeFileSync(join(root, 'src/vendor/lib/v.ts'), 'vendor')
}

describe('a read-only subfolder inside a writable workspace', () => {
  test('write, edit, mkdir and remove under it are EROFS; the policy hook says so first', async () => {
    h = harness({ readOnly: ['src/vendor'] }, tree)
    const attempts: Array<[string, Record<string, string | boolean>]> = [
      ['write_file', { path: 'src/vendor/lib/v.ts', content: 'pwned' }],
      ['write_file', { path: 'src/vendor/new.ts', content: 'x' }],
      ['write_file', { path: 'src/vendor/nested/new/deep.ts', content: 'x' }],
      ['edit_file', { path: 'src/vendor/lib/v.ts', old_string: 'vendor', new_string: 'pwned' }],
      ['mkdir', { path: 'src/vendor/made' }],
      ['remove', { path: 'src/vendor/lib/v.ts' }],
      ['remove', { path: 'src/vendor', recursive: true }],
      ['remove', { path: 'src', recursive: true }], // holds the read-only folder
      ['write_file', { path: join(h.root, 'src/vendor/abs.ts'), content: 'x' }],
      ['write_file', { path: 'src/../src/vendor/lib/v.ts', content: 'x' }],
    ]
    for (const [name, args] of attempts) {
      const decision = await h.ws.policy({ id: 'p', name, args, origin: 'native' })
      expect(decision, `${name} ${JSON.stringify(args)}`).toMatchObject({ deny: { code: 'EROFS' } })
      expect(codeOf(await h.call(name, args)), `${name} ${JSON.stringify(args)}`).toBe('EROFS')
    }
    expect(readFileSync(join(h.root, 'src/vendor/lib/v.ts'), 'utf8')).toBe('vendor')
    expect(readdirSync(join(h.root, 'src/vendor')).sort()).toEqual(['lib'])
    expect(readFileSync(join(h.root, 'src/app.ts'), 'utf8')).toBe('app')
  })

  test('reads under it work, and writes beside it work', async () => {
    h = harness({ readOnly: ['src/vendor'] }, tree)
    expect(await h.ok('read_file', { path: 'src/vendor/lib/v.ts' })).toBe('vendor')
    expect(await h.ok('glob', { pattern: 'src/vendor/**' })).toEqual(['src/vendor/lib/v.ts'])
    await h.ok('edit_file', { path: 'src/app.ts', old_string: 'app', new_string: 'app2' })
    await h.ok('write_file', { path: 'src/vendor2/x.ts', content: 'sibling with a shared prefix' })
    expect(readFileSync(join(h.root, 'src/app.ts'), 'utf8')).toBe('app2')
  })

  test('a symlink in the writable part pointing into the read-only part does not bypass it', async () => {
    h = harness({ readOnly: ['src/vendor'] }, (root) => {
      tree(root)
      symlinkSync('src/vendor/lib', join(root, 'shortcut'))
    })
    expect(codeOf(await h.call('write_file', { path: 'shortcut/v.ts', content: 'pwned' }))).toBe('EROFS')
    expect(readFileSync(join(h.root, 'src/vendor/lib/v.ts'), 'utf8')).toBe('vendor')
  })

  test.skipIf(!bwrap.available)(
    'bash: writing into the read-only part is refused by the kernel (denied EROFS, reported), beside it works',
    async () => {
      h = harness({ readOnly: ['src/vendor'] }, tree)
      const r = await h.call('bash', { command: 'echo pwned > src/vendor/lib/v.ts; echo ok > src/out.txt; rm -rf src/vendor; echo done' })
      expect(r.ok).toBe(true)
      const v = r.ok ? (r.value as { stdout: string; exit_code: number; denied?: string }) : undefined
      expect(v?.denied).toBe('EROFS')
      expect(v?.stdout).toBe('done\n')
      expect(h.denials).toEqual([{ code: 'EROFS', message: expect.stringMatching(/Read-only file system/) }])
      expect(readFileSync(join(h.root, 'src/vendor/lib/v.ts'), 'utf8')).toBe('vendor')
      expect(readFileSync(join(h.root, 'src/out.txt'), 'utf8')).toBe('ok\n')
    },
  )
})

describe('readOnly: true', () => {
  test('every write is EROFS and the workspace is untouched; reads work', async () => {
    h = harness({ readOnly: true }, tree)
    expect(codeOf(await h.call('write_file', { path: 'new.txt', content: 'x' }))).toBe('EROFS')
    expect(codeOf(await h.call('edit_file', { path: 'src/app.ts', old_string: 'app', new_string: 'x' }))).toBe('EROFS')
    expect(codeOf(await h.call('mkdir', { path: 'd' }))).toBe('EROFS')
    expect(codeOf(await h.call('remove', { path: 'src/app.ts' }))).toBe('EROFS')
    expect(codeOf(await h.call('remove', { path: '.', recursive: true }))).toBe('EPERM')
    expect(await h.ok('read_file', { path: 'src/app.ts' })).toBe('app')
    expect(existsSync(join(h.root, 'new.txt'))).toBe(false)
    expect(existsSync(join(h.root, 'd'))).toBe(false)
    expect(readFileSync(join(h.root, 'src/app.ts'), 'utf8')).toBe('app')
  })

  test.skipIf(!bwrap.available)('bash can read but not write anywhere in it', async () => {
    h = harness({ readOnly: true }, tree)
    const r = await h.call('bash', { command: 'cat src/app.ts; touch new.txt' })
    const v = r.ok ? (r.value as { stdout: string; exit_code: number; denied?: string }) : undefined
    expect(v).toMatchObject({ stdout: 'app', denied: 'EROFS' })
    expect(v?.exit_code).not.toBe(0)
    expect(existsSync(join(h.root, 'new.txt'))).toBe(false)
    expect(h.denials.map((d) => d.code)).toEqual(['EROFS'])
  })
})

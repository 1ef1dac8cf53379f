/** The file tools on a real temporary workspace: shapes, ENOENT, caps, binary content, edit's counts. */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { codeOf, harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

describe('read_file / write_file', () => {
  test('write creates parent folders; read returns the text', async () => {
    h = harness()
    expect(await h.ok('write_file', { path: 'a/b/c.txt', content: 'héllo\n' })).toEqual({ path: 'a/b/c.txt', bytes: 7 })
    expect(readFileSync(join(h.root, 'a/b/c.txt'), 'utf8')).toBe('héllo\n')
    expect(await h.ok('read_file', { path: 'a/b/c.txt' })).toBe('héllo\n')
  })

  test('write replaces a longer file completely (no stale tail)', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.txt'), 'a long original content'))
    await h.ok('write_file', { path: 'f.txt', content: 'short' })
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('short')
  })

  test('write_file and edit_file write in place by default, and replace the file with atomicWrites', async () => {
    const setup = (root: string): void => writeFileSync(join(root, 'f.txt'), 'one two')
    h = harness({}, setup)
    const ino = statSync(join(h.root, 'f.txt')).ino
    await h.ok('write_file', { path: 'f.txt', content: 'three four' })
    await h.ok('edit_file', { path: 'f.txt', old_string: 'four', new_string: '4' })
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('three 4')
    expect(statSync(join(h.root, 'f.txt')).ino).toBe(ino)
    h.cleanup()
    h = harness({ atomicWrites: true }, setup)
    const first = statSync(join(h.root, 'f.txt')).ino
    await h.ok('write_file', { path: 'f.txt', content: 'three four' })
    const second = statSync(join(h.root, 'f.txt')).ino
    expect(second).not.toBe(first)
    await h.ok('edit_file', { path: 'f.txt', old_string: 'four', new_string: '4' })
    expect(statSync(join(h.root, 'f.txt')).ino).not.toBe(second)
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('three 4')
  })

  test('an absolute path inside the workspace works', async () => {
    h = harness()
    await h.ok('write_file', { path: join(h.root, 'abs.txt'), content: 'x' })
    expect(await h.ok('read_file', { path: join(h.root, 'abs.txt') })).toBe('x')
  })

  test('a missing file is ENOENT, an ordinary failure', async () => {
    h = harness()
    const r = await h.call('read_file', { path: 'nope.txt' })
    expect(codeOf(r)).toBe('ENOENT')
    expect(h.denials).toEqual([])
  })

  test('reading a folder is EISDIR', async () => {
    h = harness({}, (root) => mkdirSync(join(root, 'd')))
    expect(codeOf(await h.call('read_file', { path: 'd' }))).toBe('EISDIR')
  })

  test('a file over the 10 MiB cap is EFBIG with a clear message', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'big.txt'), Buffer.alloc(10 * 1024 * 1024 + 1, 'a')))
    const r = await h.call('read_file', { path: 'big.txt' })
    expect(codeOf(r)).toBe('EFBIG')
    expect(!r.ok && r.error.message).toMatch(/10485761 bytes, over the 10485760-byte/)
  })

  test('writing over the cap is EFBIG and writes nothing', async () => {
    h = harness()
    const r = await h.call('write_file', { path: 'big.txt', content: 'a'.repeat(10 * 1024 * 1024 + 1) })
    expect(codeOf(r)).toBe('EFBIG')
    expect(existsSync(join(h.root, 'big.txt'))).toBe(false)
  })

  test('binary content (NUL bytes) is EILSEQ, not mojibake', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13])))
    const r = await h.call('read_file', { path: 'img.png' })
    expect(codeOf(r)).toBe('EILSEQ')
    expect(!r.ok && r.error.message).toMatch(/binary file \(NUL byte at offset 4\)/)
  })

  test('invalid UTF-8 without NULs is EILSEQ too', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])))
    const r = await h.call('read_file', { path: 'latin1.txt' })
    expect(codeOf(r)).toBe('EILSEQ')
    expect(!r.ok && r.error.message).toMatch(/not valid UTF-8/)
  })

  test('a FIFO in the workspace does not hang read_file', async () => {
    h = harness()
    const { execFileSync } = await import('node:child_process')
    execFileSync('mkfifo', [join(h.root, 'pipe')])
    expect(codeOf(await h.call('read_file', { path: 'pipe' }))).toBe('EIO')
  })
})

describe('edit_file', () => {
  test('replaces exactly one occurrence', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.ts'), 'const a = 1\nconst b = 2\n'))
    expect(await h.ok('edit_file', { path: 'f.ts', old_string: 'b = 2', new_string: 'b = 3' })).toEqual({ path: 'f.ts', replacements: 1 })
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('const a = 1\nconst b = 3\n')
  })

  test('zero matches is EINVAL saying 0, and nothing changes', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.ts'), 'x'))
    const r = await h.call('edit_file', { path: 'f.ts', old_string: 'y', new_string: 'z' })
    expect(codeOf(r)).toBe('EINVAL')
    expect(!r.ok && r.error.message).toMatch(/0 matches/)
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('x')
  })

  test('several matches without replace_all is EINVAL saying how many, and nothing changes', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.ts'), 'foo foo foo'))
    const r = await h.call('edit_file', { path: 'f.ts', old_string: 'foo', new_string: 'bar' })
    expect(codeOf(r)).toBe('EINVAL')
    expect(!r.ok && r.error.message).toMatch(/occurs 3 times/)
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('foo foo foo')
  })

  test('replace_all replaces every one; $& in new_string stays literal', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.ts'), 'foo foo foo'))
    expect(await h.ok('edit_file', { path: 'f.ts', old_string: 'foo', new_string: '$&$1', replace_all: true })).toEqual({
      path: 'f.ts',
      replacements: 3,
    })
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('$&$1 $&$1 $&$1')
  })

  test('an empty old_string is refused by the schema', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.ts'), 'x'))
    expect(codeOf(await h.call('edit_file', { path: 'f.ts', old_string: '', new_string: 'z' }))).toBe('EINVAL')
  })

  test('editing a missing file is ENOENT', async () => {
    h = harness()
    expect(codeOf(await h.call('edit_file', { path: 'nope', old_string: 'a', new_string: 'b' }))).toBe('ENOENT')
  })
})

describe('list_dir, stat, mkdir, remove', () => {
  test('list_dir: sorted entries with type and size; symlinks listed as symlinks', async () => {
    h = harness({}, (root) => {
      writeFileSync(join(root, 'b.txt'), '123')
      mkdirSync(join(root, 'a'))
      symlinkSync('b.txt', join(root, 'c'))
    })
    expect(await h.ok('list_dir', { path: '.' })).toEqual([
      { name: 'a', type: 'dir', size: 0 },
      { name: 'b.txt', type: 'file', size: 3 },
      { name: 'c', type: 'symlink', size: 5 },
    ])
  })

  test('list_dir of a file is ENOTDIR; of a missing folder ENOENT', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f'), ''))
    expect(codeOf(await h.call('list_dir', { path: 'f' }))).toBe('ENOTDIR')
    expect(codeOf(await h.call('list_dir', { path: 'nope' }))).toBe('ENOENT')
  })

  test('stat describes a file', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f'), 'abc', { mode: 0o640 }))
    const s = await h.ok<{ type: string; size: number; mode: string; mtime: string }>('stat', { path: 'f' })
    expect(s).toMatchObject({ path: 'f', type: 'file', size: 3, mode: '0640' })
    expect(Number.isNaN(Date.parse(s.mtime))).toBe(false)
  })

  test('mkdir creates parents, is fine twice, and is EEXIST over a file', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f'), ''))
    await h.ok('mkdir', { path: 'x/y/z' })
    await h.ok('mkdir', { path: 'x/y/z' })
    expect(existsSync(join(h.root, 'x/y/z'))).toBe(true)
    expect(codeOf(await h.call('mkdir', { path: 'f' }))).toBe('EEXIST')
  })

  test('remove: a file; a non-empty folder needs recursive; missing is ENOENT', async () => {
    h = harness({}, (root) => {
      mkdirSync(join(root, 'd/e'), { recursive: true })
      writeFileSync(join(root, 'd/e/f'), '')
      writeFileSync(join(root, 'g'), '')
    })
    await h.ok('remove', { path: 'g' })
    expect(existsSync(join(h.root, 'g'))).toBe(false)
    expect(codeOf(await h.call('remove', { path: 'd' }))).toBe('ENOTEMPTY')
    expect(existsSync(join(h.root, 'd/e/f'))).toBe(true)
    await h.ok('remove', { path: 'd', recursive: true })
    expect(existsSync(join(h.root, 'd'))).toBe(false)
    expect(codeOf(await h.call('remove', { path: 'g' }))).toBe('ENOENT')
  })

  test('removing the workspace root is EPERM, however it is spelled', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'keep'), ''))
    for (const path of ['.', './', h.root, 'a/..', `${h.root}/`]) {
      const r = await h.call('remove', { path, recursive: true })
      expect(codeOf(r), path).toBe('EPERM')
    }
    expect(existsSync(join(h.root, 'keep'))).toBe(true)
  })
})

describe('glob', () => {
  test('**, *, ?, {a,b} and [..], sorted and workspace-relative', async () => {
    h = harness({}, (root) => {
      for (const f of [
        'src/a.ts',
        'src/b.ts',
        'src/deep/c.ts',
        'src/deep/d.js',
        'README.md',
        'x1.json',
        'x2.json',
        'x10.json',
        '.hidden/e.ts',
      ]) {
        mkdirSync(join(root, f, '..'), { recursive: true })
        writeFileSync(join(root, f), '')
      }
    })
    expect(await h.ok('glob', { pattern: '**/*.ts' })).toEqual(['.hidden/e.ts', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts'])
    expect(await h.ok('glob', { pattern: 'src/*.ts' })).toEqual(['src/a.ts', 'src/b.ts'])
    expect(await h.ok('glob', { pattern: 'x?.json' })).toEqual(['x1.json', 'x2.json'])
    expect(await h.ok('glob', { pattern: 'x[0-1]*.json' })).toEqual(['x1.json', 'x10.json'])
    expect(await h.ok('glob', { pattern: '{README.md,src/deep/*.{js,ts}}' })).toEqual(['README.md', 'src/deep/c.ts', 'src/deep/d.js'])
    expect(await h.ok('glob', { pattern: 'src/**' })).toEqual(['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'src/deep/d.js'])
    expect(await h.ok('glob', { pattern: 'nowhere/**/*.ts' })).toEqual([])
    expect(await h.ok('glob', { pattern: `${h.root}/src/*.ts` })).toEqual(['src/a.ts', 'src/b.ts'])
  })

  test('a glob never descends through a symlinked folder, even one pointing inside', async () => {
    h = harness({}, (root, outside) => {
      writeFileSync(join(outside, 'secret.ts'), '')
      mkdirSync(join(root, 'in'))
      writeFileSync(join(root, 'in/x.ts'), '')
      symlinkSync(outside, join(root, 'out'))
      symlinkSync(join(root, 'in'), join(root, 'loop'))
    })
    expect(await h.ok('glob', { pattern: '**/*.ts' })).toEqual(['in/x.ts'])
  })
})

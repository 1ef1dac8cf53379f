/** `beneath.ts` directly, as the staging code uses it: by-descriptor walks, atomic writes, rename, remove. */
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { splitRel } from '../../sandbox/workspace/beneath.js'
import {
  mkdirBeneath,
  readTextBeneath,
  readdirBeneath,
  removeBeneath,
  renameBeneath,
  statBeneath,
  walkBeneath,
} from '../../sandbox/workspace/beneath-files.js'
import { writeBeneath } from '../../sandbox/workspace/beneath-write.js'
import { harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

describe('beneath the root by descriptor', () => {
  test('names that could climb or are absolute are EACCES before anything is opened', () => {
    h = harness()
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a\0b'])
      expect(() => splitRel(bad), bad).toThrow(expect.objectContaining({ code: 'EACCES' }))
    expect(splitRel('./a//b/.')).toEqual(['a', 'b'])
  })

  test('a symlink anywhere in the path is refused, even one pointing inside; messages are workspace-relative', async () => {
    h = harness({}, (root) => {
      mkdirSync(join(root, 'real'))
      writeFileSync(join(root, 'real/f.txt'), 'x')
      symlinkSync('real', join(root, 'alias'))
    })
    const err = await readTextBeneath(h.root, 'alias/f.txt', 100).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'EACCES', message: 'alias is a symlink at the point of use; refused (it is not followed)' })
    await expect(writeBeneath(h.root, 'alias/g.txt', 'x')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(mkdirBeneath(h.root, 'alias/d')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(readdirBeneath(h.root, 'alias')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(walkBeneath(h.root, 'alias', 10)).rejects.toMatchObject({ code: 'EACCES' })
    await expect(readTextBeneath(h.root, 'real/missing.txt', 100)).rejects.toMatchObject({
      code: 'ENOENT',
      message: 'no such file or folder: real/missing.txt',
    })
    // The final component of remove/stat is the link itself.
    expect(await statBeneath(h.root, 'alias')).toMatchObject({ type: 'symlink' })
    await removeBeneath(h.root, 'alias', true)
    expect(readdirSync(h.root)).toEqual(['real'])
    expect(readFileSync(join(h.root, 'real/f.txt'), 'utf8')).toBe('x')
  })

  test('writes are atomic replacements that keep the mode and never write through a hard link', async () => {
    h = harness({}, (root, outside) => {
      writeFileSync(join(root, 'run.sh'), 'old')
      chmodSync(join(root, 'run.sh'), 0o751)
      writeFileSync(join(outside, 'shared.txt'), 'outside')
      linkSync(join(outside, 'shared.txt'), join(root, 'shared.txt'))
    })
    await writeBeneath(h.root, 'run.sh', 'new', { durable: true })
    expect(readFileSync(join(h.root, 'run.sh'), 'utf8')).toBe('new')
    expect(statSync(join(h.root, 'run.sh')).mode & 0o7777).toBe(0o751)
    await writeBeneath(h.root, 'shared.txt', 'replaced')
    expect(readFileSync(join(h.outside, 'shared.txt'), 'utf8')).toBe('outside')
    await writeBeneath(h.root, 'a/b/c.txt', 'deep')
    expect(readFileSync(join(h.root, 'a/b/c.txt'), 'utf8')).toBe('deep')
    // No temp file is left behind.
    expect(readdirSync(h.root).sort()).toEqual(['a', 'run.sh', 'shared.txt'])
    await expect(writeBeneath(h.root, 'a', 'x')).rejects.toMatchObject({ code: 'EISDIR' })
    await expect(writeBeneath(h.root, 'run.sh/x', 'x')).rejects.toMatchObject({ code: 'ENOTDIR' })
  })

  test('big files (past the synchronous size) round-trip, and the read cap holds', async () => {
    h = harness()
    const big = 'é'.repeat(600_000) + 'end'
    await writeBeneath(h.root, 'big.txt', big, { durable: true })
    expect(await readTextBeneath(h.root, 'big.txt', 10_000_000)).toBe(big)
    await expect(readTextBeneath(h.root, 'big.txt', 1000)).rejects.toMatchObject({ code: 'EFBIG' })
  })

  test('rename moves within the root, creating the destination folders', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'staged.txt'), 'v2'))
    await renameBeneath(h.root, 'staged.txt', 'out/final.txt')
    expect(readFileSync(join(h.root, 'out/final.txt'), 'utf8')).toBe('v2')
    expect(existsSync(join(h.root, 'staged.txt'))).toBe(false)
    await expect(renameBeneath(h.root, 'nope', 'x')).rejects.toMatchObject({ code: 'ENOENT' })
  })

  test('mkdir over a file is EEXIST; the root cannot be a target', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f'), ''))
    await expect(mkdirBeneath(h.root, 'f')).rejects.toMatchObject({ code: 'EEXIST' })
    await expect(mkdirBeneath(h.root, 'f/g')).rejects.toMatchObject({ code: 'EEXIST' })
    await expect(removeBeneath(h.root, '.', true)).rejects.toMatchObject({ code: 'EPERM' })
    expect(await walkBeneath(h.root, '.', 10)).toEqual({ entries: [{ path: 'f', type: 'file' }], truncated: false })
  })
})

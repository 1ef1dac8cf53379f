/** `beneath.ts` directly, as the staging code uses it: by-descriptor walks, atomic writes, rename, remove. */
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
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

  test('in place: the same file (inode, mode) gets exactly the new bytes, shorter or longer, big or small', async () => {
    h = harness({}, (root) => {
      writeFileSync(join(root, 'f.txt'), 'a fairly long first version\n')
      chmodSync(join(root, 'f.txt'), 0o640)
    })
    const f = join(h.root, 'f.txt')
    const ino = statSync(f).ino
    for (const next of ['short\n', 'a much longer second version than the first one was\n', '', 'x'.repeat(300_000) + 'end', 'tiny']) {
      await writeBeneath(h.root, 'f.txt', next, { inPlace: true })
      expect(readFileSync(f, 'utf8')).toBe(next)
      expect(statSync(f).ino, 'written in place, not replaced').toBe(ino)
      expect(statSync(f).mode & 0o7777).toBe(0o640)
    }
    // durable: crash-safe, so replaced (and fsynced), never in place.
    await writeBeneath(h.root, 'f.txt', 'durable', { inPlace: true, durable: true })
    expect(readFileSync(f, 'utf8')).toBe('durable')
    expect(statSync(f).ino).not.toBe(ino)
    expect(statSync(f).mode & 0o7777).toBe(0o640)
    await writeBeneath(h.root, 'new/n.txt', 'created', { inPlace: true })
    expect(readFileSync(join(h.root, 'new/n.txt'), 'utf8')).toBe('created')
    expect(readdirSync(h.root).sort()).toEqual(['f.txt', 'new'])
  })

  test('in place never writes through a hard link, a symlink, a setuid bit or a read-only mode: it replaces or refuses', async () => {
    h = harness({}, (root, outside) => {
      writeFileSync(join(outside, 'shared.txt'), 'outside')
      linkSync(join(outside, 'shared.txt'), join(root, 'shared.txt'))
      writeFileSync(join(outside, 'target.txt'), 'outside')
      symlinkSync(join(outside, 'target.txt'), join(root, 'link.txt'))
      writeFileSync(join(root, 'suid'), 'old')
      chmodSync(join(root, 'suid'), 0o4755)
      writeFileSync(join(root, 'sticky'), 'old')
      chmodSync(join(root, 'sticky'), 0o1644)
      writeFileSync(join(root, 'ro.txt'), 'old')
      chmodSync(join(root, 'ro.txt'), 0o444)
    })
    await writeBeneath(h.root, 'shared.txt', 'replaced', { inPlace: true })
    expect(readFileSync(join(h.outside, 'shared.txt'), 'utf8')).toBe('outside')
    expect(readFileSync(join(h.root, 'shared.txt'), 'utf8')).toBe('replaced')
    expect(statSync(join(h.root, 'shared.txt')).nlink).toBe(1)
    await expect(writeBeneath(h.root, 'link.txt', 'x', { inPlace: true })).rejects.toMatchObject({ code: 'EACCES' })
    expect(readFileSync(join(h.outside, 'target.txt'), 'utf8')).toBe('outside')
    // A write in place would clear the setuid bit; replaced, it keeps it.
    await writeBeneath(h.root, 'suid', 'new', { inPlace: true })
    expect(statSync(join(h.root, 'suid')).mode & 0o7777).toBe(0o4755)
    const sticky = statSync(join(h.root, 'sticky')).ino
    await writeBeneath(h.root, 'sticky', 'new', { inPlace: true })
    expect(statSync(join(h.root, 'sticky')).ino, 'a non-plain mode is replaced, not written in place').not.toBe(sticky)
    expect(statSync(join(h.root, 'sticky')).mode & 0o7777).toBe(0o1644)
    // Not writable by mode (as a non-root user): replaced as before, mode kept.
    await writeBeneath(h.root, 'ro.txt', 'new', { inPlace: true })
    expect(readFileSync(join(h.root, 'ro.txt'), 'utf8')).toBe('new')
    expect(statSync(join(h.root, 'ro.txt')).mode & 0o7777).toBe(0o444)
  })

  test('in place: a file that became a hard link to an outside file since the last write is replaced, not written through', async () => {
    h = harness({}, (root) => writeFileSync(join(root, 'f.txt'), 'v0'))
    await writeBeneath(h.root, 'f.txt', 'v1', { inPlace: true })
    // Mid-run, something links the workspace file from outside (as a user's `ln` would).
    execFileSync('ln', [join(h.root, 'f.txt'), join(h.outside, 'also.txt')])
    await writeBeneath(h.root, 'f.txt', 'v2', { inPlace: true })
    expect(readFileSync(join(h.outside, 'also.txt'), 'utf8')).toBe('v1')
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('v2')
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

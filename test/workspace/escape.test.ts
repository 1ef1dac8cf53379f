/**
 * EACCES: every way a path can leave the workspace — `..`, absolute paths elsewhere, symlinks (to a
 * file, to a folder, at depth, dangling) — and the races where a component turns into a symlink after the
 * policy looked. Each test also checks that nothing outside changed.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { createHostOps } from '../../sandbox/workspace/index.js'
import { codeOf, harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

const SECRET = 'outside secret'

function withOutsideSecret(root: string, outside: string): void {
  writeFileSync(join(outside, 'secret.txt'), SECRET)
  mkdirSync(join(root, 'sub/deeper'), { recursive: true })
}

describe('paths that leave the workspace are EACCES', () => {
  test('`..` tricks', async () => {
    h = harness({}, withOutsideSecret)
    for (const path of [
      '../outside/secret.txt',
      'sub/../../outside/secret.txt',
      'sub/deeper/../../../outside/secret.txt',
      './../outside/secret.txt',
      '..',
    ]) {
      const r = await h.call('read_file', { path })
      expect(codeOf(r), path).toBe('EACCES')
      expect(JSON.stringify(r)).not.toContain(SECRET)
    }
    expect(codeOf(await h.call('write_file', { path: '../outside/new.txt', content: 'x' }))).toBe('EACCES')
    expect(existsSync(join(h.outside, 'new.txt'))).toBe(false)
  })

  test('absolute paths elsewhere, including a sibling sharing the root as a prefix', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      mkdirSync(`${root}-evil`)
      writeFileSync(`${root}-evil/f`, SECRET)
    })
    for (const path of ['/etc/passwd', join(h.outside, 'secret.txt'), `${h.root}-evil/f`, '/']) {
      expect(codeOf(await h.call('read_file', { path })), path).toBe('EACCES')
    }
    expect(codeOf(await h.call('list_dir', { path: '/' }))).toBe('EACCES')
    expect(codeOf(await h.call('mkdir', { path: join(h.outside, 'd') }))).toBe('EACCES')
    expect(existsSync(join(h.outside, 'd'))).toBe(false)
  })

  test('a symlink to a file outside: read, write, edit and stat-through all refused', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'))
    })
    expect(codeOf(await h.call('read_file', { path: 'link.txt' }))).toBe('EACCES')
    expect(codeOf(await h.call('write_file', { path: 'link.txt', content: 'pwned' }))).toBe('EACCES')
    expect(codeOf(await h.call('edit_file', { path: 'link.txt', old_string: 'outside', new_string: 'pwned' }))).toBe('EACCES')
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  })

  test('a symlink to a folder outside, at depth, and relative links climbing out', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      symlinkSync(outside, join(root, 'sub/deeper/out'))
      symlinkSync('../../../outside', join(root, 'sub/deeper/rel'))
    })
    for (const path of ['sub/deeper/out/secret.txt', 'sub/deeper/rel/secret.txt', 'sub/deeper/out']) {
      expect(codeOf(await h.call('read_file', { path })), path).toBe('EACCES')
      expect(codeOf(await h.call('list_dir', { path })), path).toBe('EACCES')
    }
    expect(codeOf(await h.call('write_file', { path: 'sub/deeper/out/new/x.txt', content: 'x' }))).toBe('EACCES')
    expect(codeOf(await h.call('mkdir', { path: 'sub/deeper/rel/made' }))).toBe('EACCES')
    expect(codeOf(await h.call('glob', { pattern: 'sub/deeper/out/*.txt' }))).toBe('EACCES')
    expect(existsSync(join(h.outside, 'new'))).toBe(false)
    expect(existsSync(join(h.outside, 'made'))).toBe(false)
  })

  test('a dangling symlink pointing out: a write would land outside, so it is refused', async () => {
    h = harness({}, (root, outside) => {
      symlinkSync(join(outside, 'not-yet.txt'), join(root, 'dangling'))
      symlinkSync(join(outside, 'no-dir'), join(root, 'dangling-dir'))
    })
    expect(codeOf(await h.call('write_file', { path: 'dangling', content: 'x' }))).toBe('EACCES')
    expect(codeOf(await h.call('write_file', { path: 'dangling-dir/f.txt', content: 'x' }))).toBe('EACCES')
    expect(codeOf(await h.call('mkdir', { path: 'dangling-dir' }))).toBe('EACCES')
    expect(existsSync(join(h.outside, 'not-yet.txt'))).toBe(false)
    expect(existsSync(join(h.outside, 'no-dir'))).toBe(false)
  })

  test('symlinks that stay inside work', async () => {
    h = harness({}, (root) => {
      mkdirSync(join(root, 'real'))
      writeFileSync(join(root, 'real/f.txt'), 'inside')
      symlinkSync('real', join(root, 'alias'))
    })
    expect(await h.ok('read_file', { path: 'alias/f.txt' })).toBe('inside')
    await h.ok('write_file', { path: 'alias/g.txt', content: 'new' })
    expect(readFileSync(join(h.root, 'real/g.txt'), 'utf8')).toBe('new')
  })

  test('remove of a symlink pointing out removes the link, never its target', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      symlinkSync(outside, join(root, 'out'))
    })
    await h.ok('remove', { path: 'out', recursive: true })
    expect(existsSync(join(h.root, 'out'))).toBe(false)
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  })

  test('a recursive remove does not follow symlinks inside the removed folder', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      symlinkSync(outside, join(root, 'sub/deeper/out'))
    })
    await h.ok('remove', { path: 'sub', recursive: true })
    expect(existsSync(join(h.root, 'sub'))).toBe(false)
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  })

  test('a hard link shared with a file outside: write and edit replace the entry, the outside file is untouched', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      linkSync(join(outside, 'secret.txt'), join(root, 'hard.txt'))
    })
    await h.ok('write_file', { path: 'hard.txt', content: 'new content' })
    expect(readFileSync(join(h.root, 'hard.txt'), 'utf8')).toBe('new content')
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
    linkSync(join(h.outside, 'secret.txt'), join(h.root, 'hard2.txt'))
    await h.ok('edit_file', { path: 'hard2.txt', old_string: 'secret', new_string: 'edited' })
    expect(readFileSync(join(h.root, 'hard2.txt'), 'utf8')).toBe('outside edited')
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  })

  test('glob patterns cannot climb out', async () => {
    h = harness({}, withOutsideSecret)
    expect(codeOf(await h.call('glob', { pattern: '../**/*.txt' }))).toBe('EACCES')
    expect(codeOf(await h.call('glob', { pattern: 'sub/{..,x}/../**' }))).toBe('EACCES')
    expect(codeOf(await h.call('glob', { pattern: join(h.outside, '*.txt') }))).toBe('EACCES')
  })

  test('the policy hook itself denies, before the tool runs (EACCES as a denial)', async () => {
    h = harness({}, withOutsideSecret)
    const decision = await h.ws.policy({ id: 'x', name: 'write_file', args: { path: '../outside/x', content: '' }, origin: 'native' })
    expect(decision).toEqual({ deny: { code: 'EACCES', message: expect.stringContaining('outside the workspace') } })
    // Tools it does not own pass through untouched.
    expect(await h.ws.policy({ id: 'y', name: 'my_tool', args: { path: '../outside/x' }, origin: 'native' })).toBeUndefined()
  })
})

describe('races: a component becomes a symlink after the check', () => {
  test('the tool re-checks after the hook allowed the call', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      writeFileSync(join(root, 'sub/deeper/f.txt'), 'inside')
    })
    const args = { path: 'sub/deeper/f.txt', content: 'pwned' }
    expect(await h.ws.policy({ id: 'r', name: 'write_file', args, origin: 'code' })).toBeUndefined()
    // Between the hook and the tool: `sub` is swapped for a symlink pointing out.
    renameSync(join(h.root, 'sub'), join(h.root, 'sub.old'))
    mkdirSync(join(h.outside, 'deeper'))
    writeFileSync(join(h.outside, 'deeper/f.txt'), SECRET)
    symlinkSync(h.outside, join(h.root, 'sub'))
    const tool = h.ws.tools.find((t) => t.name === 'write_file')
    const ctx = {
      callId: 'r',
      parentId: undefined,
      origin: 'code' as const,
      signal: new AbortController().signal,
      concludeTurn: () => undefined,
      reportDenial: () => undefined,
      services: {},
    }
    await expect(Promise.resolve().then(() => tool?.execute(args, ctx))).rejects.toMatchObject({ code: 'EACCES' })
    expect(readFileSync(join(h.outside, 'deeper/f.txt'), 'utf8')).toBe(SECRET)
  })

  test('the ops re-check at the point of use: an already-resolved path that moved out is refused', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      writeFileSync(join(root, 'sub/deeper/f.txt'), 'inside')
    })
    const ops = createHostOps(h.ws.config)
    const resolved = join(h.root, 'sub/deeper/f.txt') // what the guard handed over
    // Swap an intermediate folder for a symlink to the outside, holding a same-named file.
    rmSync(join(h.root, 'sub'), { recursive: true })
    mkdirSync(join(h.outside, 'deeper'))
    writeFileSync(join(h.outside, 'deeper/f.txt'), SECRET)
    symlinkSync(h.outside, join(h.root, 'sub'))
    await expect(ops.readFile(resolved, 1024)).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.writeFile(resolved, 'pwned')).rejects.toMatchObject({ code: 'EACCES' })
    expect(readFileSync(join(h.outside, 'deeper/f.txt'), 'utf8')).toBe(SECRET)
    // A new file through the swapped folder: refused, and the empty file it opened is taken back.
    await expect(ops.writeFile(join(h.root, 'sub/deeper/new.txt'), 'pwned')).rejects.toMatchObject({ code: 'EACCES' })
    expect(existsSync(join(h.outside, 'deeper/new.txt'))).toBe(false)
    await expect(ops.mkdir(join(h.root, 'sub/made'))).rejects.toMatchObject({ code: 'EACCES' })
    expect(existsSync(join(h.outside, 'made'))).toBe(false)
    await expect(ops.readdir(join(h.root, 'sub'))).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.remove(join(h.root, 'sub/deeper/f.txt'), false)).rejects.toMatchObject({ code: 'EACCES' })
    expect(existsSync(join(h.outside, 'deeper/f.txt'))).toBe(true)
  })

  // The folders of a walk are kept open for the next operations (beneath.ts): a kept folder that moved is
  // never used where it went — swapped for a symlink out, renamed aside, removed and made again.
  test('after the folders were walked (and kept open), a swap is still refused at the point of use', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      writeFileSync(join(root, 'sub/deeper/f.txt'), 'inside')
    })
    const ops = createHostOps(h.ws.config)
    const file = join(h.root, 'sub/deeper/f.txt')
    for (let i = 0; i < 3; i++) await ops.writeFile(file, `inside ${i}`)
    expect(await ops.readFile(file, 1024)).toBe('inside 2')
    // Moved out whole (the kept descriptors follow it there), a symlink to it left in its place.
    renameSync(join(h.root, 'sub'), join(h.outside, 'sub'))
    symlinkSync(join(h.outside, 'sub'), join(h.root, 'sub'))
    await expect(ops.writeFile(file, 'pwned')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.readFile(file, 1024)).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.writeFile(join(h.root, 'sub/deeper/new.txt'), 'pwned')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.readdir(join(h.root, 'sub/deeper'))).rejects.toMatchObject({ code: 'EACCES' })
    expect(readFileSync(join(h.outside, 'sub/deeper/f.txt'), 'utf8')).toBe('inside 2')
    expect(existsSync(join(h.outside, 'sub/deeper/new.txt'))).toBe(false)
  })

  test('a kept folder renamed aside or made again: the write lands at the path asked for', async () => {
    h = harness({}, (root) => {
      mkdirSync(join(root, 'sub/deeper'), { recursive: true })
      writeFileSync(join(root, 'sub/deeper/f.txt'), 'inside')
    })
    const ops = createHostOps(h.ws.config)
    const file = join(h.root, 'sub/deeper/f.txt')
    await ops.writeFile(file, 'one')
    renameSync(join(h.root, 'sub'), join(h.root, 'aside'))
    await ops.writeFile(file, 'two')
    expect(readFileSync(join(h.root, 'aside/deeper/f.txt'), 'utf8')).toBe('one')
    expect(readFileSync(file, 'utf8')).toBe('two')
    rmSync(join(h.root, 'sub'), { recursive: true })
    mkdirSync(join(h.root, 'sub/deeper'), { recursive: true })
    await ops.writeFile(file, 'three')
    expect(readFileSync(file, 'utf8')).toBe('three')
  })

  test('the final component swapped for a symlink is refused (O_NOFOLLOW)', async () => {
    h = harness({}, (root, outside) => {
      withOutsideSecret(root, outside)
      writeFileSync(join(root, 'f.txt'), 'inside')
    })
    const ops = createHostOps(h.ws.config)
    rmSync(join(h.root, 'f.txt'))
    symlinkSync(join(h.outside, 'secret.txt'), join(h.root, 'f.txt'))
    await expect(ops.readFile(join(h.root, 'f.txt'), 1024)).rejects.toMatchObject({ code: 'EACCES' })
    await expect(ops.writeFile(join(h.root, 'f.txt'), 'pwned')).rejects.toMatchObject({ code: 'EACCES' })
    expect(readFileSync(join(h.outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  })
})

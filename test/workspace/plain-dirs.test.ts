/**
 * Within one run the policy remembers the folders it found free of symlinks (resolveInsidePlain) and judges
 * a path in one by an lstat of its last component alone. These runs change the tree between two calls of
 * the same program — through a tool of the test's own (what another process could do at any moment) or
 * through bash — and check that a remembered folder never becomes a way out, past a read-only part, or to
 * the wrong place, and that RunResult.changes stays exact. Real isolate, real workspace tools and folders.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  existsSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'

const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

function folder(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  made.push(d)
  return d
}

/** A workspace with `sub/f.txt`, folders `a` and `b`, `link -> a`, and an outside folder with a secret. */
function setup(): { root: string; outside: string } {
  const root = folder('codeact-plain-')
  const outside = folder('codeact-plain-out-')
  mkdirSync(join(root, 'sub'))
  writeFileSync(join(root, 'sub/f.txt'), 'inside')
  mkdirSync(join(root, 'a'))
  mkdirSync(join(root, 'b'))
  symlinkSync('a', join(root, 'link'))
  writeFileSync(join(outside, 'f.txt'), 'outside secret')
  return { root, outside }
}

/** A tool that changes the tree mid-run, as another process could: the policy hears nothing of it. */
function racer(change: () => void) {
  return defineTool({ name: 'swap', description: 'changes the tree', parameters: z.object({}), execute: async () => void change() })
}

/** Each call's outcome, in the program: 'ok' or its error code. */
const TRY = `const tryCall = async (f) => { try { await f(); return 'ok' } catch (e) { return e.code } }`

describe('the policy within one run', () => {
  it('a folder it already used, swapped for a symlink out mid-run: write, read, edit refused, outside untouched', async () => {
    const { root, outside } = setup()
    const swap = racer(() => {
      renameSync(join(root, 'sub'), join(root, 'sub.real'))
      symlinkSync(outside, join(root, 'sub'))
    })
    const rt = await testRuntime({ workspace: { root }, tools: [swap] })
    const r = await rt.runCode(`${TRY}
      await tools.write_file({ path: 'sub/a.txt', content: 'first' })
      await tools.read_file({ path: 'sub/f.txt' })
      await tools.swap({})
      const out = []
      out.push(await tryCall(() => tools.write_file({ path: 'sub/b.txt', content: 'pwned' })))
      out.push(await tryCall(() => tools.write_file({ path: 'sub/f.txt', content: 'pwned' })))
      out.push(await tryCall(async () => { const t = await tools.read_file({ path: 'sub/f.txt' }); if (t.includes('secret')) throw Object.assign(new Error(), { code: 'LEAKED' }) }))
      out.push(await tryCall(() => tools.edit_file({ path: 'sub/f.txt', old_string: 'outside', new_string: 'pwned' })))
      return out`)
    expect(r.error).toBeNull()
    expect(r.value).toEqual(['EACCES', 'EACCES', 'EACCES', 'EACCES'])
    expect(existsSync(join(outside, 'b.txt'))).toBe(false)
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside secret')
    expect(existsSync(join(root, 'sub.real/b.txt'))).toBe(false)
    expect(readFileSync(join(root, 'sub.real/a.txt'), 'utf8')).toBe('first')
  })

  it('a folder it already used, swapped for a symlink to a read-only part mid-run: the write is refused, the part unchanged', async () => {
    const { root } = setup()
    mkdirSync(join(root, 'ro'))
    writeFileSync(join(root, 'ro/f.txt'), 'kept')
    const swap = racer(() => {
      renameSync(join(root, 'sub'), join(root, 'sub.real'))
      symlinkSync('ro', join(root, 'sub'))
    })
    const rt = await testRuntime({ workspace: { root, readOnly: ['ro'] }, tools: [swap] })
    const r = await rt.runCode(`${TRY}
      await tools.write_file({ path: 'sub/a.txt', content: 'first' })
      await tools.swap({})
      return [await tryCall(() => tools.write_file({ path: 'sub/f.txt', content: 'pwned' })), await tryCall(() => tools.write_file({ path: 'sub/new.txt', content: 'pwned' }))]`)
    expect(r.error).toBeNull()
    for (const code of r.value as string[]) expect(['EACCES', 'EROFS']).toContain(code)
    expect(readFileSync(join(root, 'ro/f.txt'), 'utf8')).toBe('kept')
    expect(existsSync(join(root, 'ro/new.txt'))).toBe(false)
  })

  it('a symlinked folder retargeted mid-run: the next write lands where it points now (symlinked folders are never remembered)', async () => {
    const { root } = setup()
    const swap = racer(() => {
      rmSync(join(root, 'link'))
      symlinkSync('b', join(root, 'link'))
    })
    const rt = await testRuntime({ workspace: { root }, tools: [swap] })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'link/f.txt', content: 'one' })
      await tools.swap({})
      await tools.write_file({ path: 'link/f.txt', content: 'two' })`)
    expect(r.error).toBeNull()
    expect(readFileSync(join(root, 'a/f.txt'), 'utf8')).toBe('one')
    expect(readFileSync(join(root, 'b/f.txt'), 'utf8')).toBe('two')
  })

  it('a folder renamed away and made again between two calls: the write lands in the new folder, the old one untouched', async () => {
    const { root } = setup()
    const swap = racer(() => {
      renameSync(join(root, 'sub'), join(root, 'sub.old'))
      mkdirSync(join(root, 'sub'))
    })
    const rt = await testRuntime({ workspace: { root }, tools: [swap] })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'sub/a.txt', content: 'one' })
      await tools.swap({})
      await tools.write_file({ path: 'sub/a.txt', content: 'two' })`)
    expect(r.error).toBeNull()
    expect(readFileSync(join(root, 'sub.old/a.txt'), 'utf8')).toBe('one')
    expect(readFileSync(join(root, 'sub/a.txt'), 'utf8')).toBe('two')
  })

  it.skipIf(!bwrap.available)('bash makes a used folder a symlink inside: the next write follows it, as a fresh run would', async () => {
    const { root } = setup()
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'sub/a.txt', content: 'one' })
      const b = await tools.bash({ command: 'mv sub sub.old && ln -s a sub' })
      if (b.exit_code !== 0) throw new Error(b.stderr)
      await tools.write_file({ path: 'sub/b.txt', content: 'two' })`)
    expect(r.error).toBeNull()
    expect(readFileSync(join(root, 'a/b.txt'), 'utf8')).toBe('two')
    expect(existsSync(join(root, 'sub.old/b.txt'))).toBe(false)
  })
})

describe('RunResult.changes with the read signature taken from the read itself', () => {
  it('a file read and then changed behind the tools is modified; a file only read is not', async () => {
    const root = folder('codeact-plain-sig-')
    writeFileSync(join(root, 'x.txt'), 'same')
    writeFileSync(join(root, 'y.txt'), 'before')
    const swap = racer(() => {
      writeFileSync(join(root, 'y.txt'), 'after!') // same size
      utimesSync(join(root, 'y.txt'), new Date(1_000_000), new Date(1_000_000))
    })
    const rt = await testRuntime({ workspace: { root }, tools: [swap] })
    const r = await rt.runCode(`
      await tools.read_file({ path: 'x.txt' })
      await tools.read_file({ path: 'y.txt' })
      await tools.swap({})
      await tools.read_file({ path: 'x.txt' })`)
    expect(r.error).toBeNull()
    expect(r.changes).toEqual([{ path: 'y.txt', change: 'modified' }])
  })

  it('a file read, then made a hard link to an outside file: the write replaces the name, the outside file is untouched', async () => {
    const root = folder('codeact-plain-link-')
    const outside = folder('codeact-plain-link-out-')
    writeFileSync(join(root, 'f.txt'), 'inside')
    writeFileSync(join(outside, 'secret.txt'), 'outside secret')
    const swap = racer(() => {
      rmSync(join(root, 'f.txt'))
      linkSync(join(outside, 'secret.txt'), join(root, 'f.txt'))
    })
    const rt = await testRuntime({ workspace: { root }, tools: [swap] })
    const r = await rt.runCode(`
      const t = await tools.read_file({ path: 'f.txt' })
      await tools.swap({})
      await tools.write_file({ path: 'f.txt', content: t.toUpperCase() })`)
    expect(r.error).toBeNull()
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret')
    expect(readFileSync(join(root, 'f.txt'), 'utf8')).toBe('INSIDE')
    expect(r.changes).toEqual([{ path: 'f.txt', change: 'modified' }])
  })
})

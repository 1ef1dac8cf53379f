/**
 * TypeScript's code cache: used only from a private directory, only when the file is this user's own,
 * private, a regular file and intact. A corrupt, foreign-owned, linked or shared cache is never loaded,
 * and TypeScript still loads (from source).
 */
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTypeScript } from '../../program/ts-load.js'

const works = (load: ReturnType<typeof loadTypeScript>) => {
  const file = load.ts.createSourceFile('x.ts', 'const a: number = 1', load.ts.ScriptTarget.ES2023)
  expect(file.statements).toHaveLength(1)
}

/** A private directory holding a good cache (written by a first load); returns it and the cache file. */
function primed(): { dir: string; file: string } {
  const dir = join(mkdtempSync(join(tmpdir(), 'codeact-tscache-')), 'cache')
  const first = loadTypeScript({ CODEACT_CACHE_DIR: dir })
  expect(first.cache).toBe('missing')
  works(first)
  const file = first.save()
  expect(file).toBeDefined()
  return { dir, file: file! }
}

describe('loading TypeScript with a code cache', () => {
  it('writes the cache privately and uses it the next time', () => {
    const { dir, file } = primed()
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const second = loadTypeScript({ CODEACT_CACHE_DIR: dir })
    expect(second.cache).toBe('loaded')
    works(second)
  }, 60_000)

  it('ignores a corrupt cache and still loads TypeScript', () => {
    const { dir, file } = primed()
    const bytes = readFileSync(file)
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 100) ^ 0xff, bytes.length - 100)
    writeFileSync(file, bytes, { mode: 0o600 })
    const load = loadTypeScript({ CODEACT_CACHE_DIR: dir })
    expect(load.cache).toBe('ignored')
    expect(load.why).toMatch(/corrupt/)
    works(load)
    // Its own corrupt file is replaced with a good one.
    expect(load.save()).toBe(file)
    expect(loadTypeScript({ CODEACT_CACHE_DIR: dir }).cache).toBe('loaded')
  }, 60_000)

  it.skipIf(process.getuid?.() !== 0)(
    'never loads a cache file another user owns, even an intact one',
    () => {
      const { dir, file } = primed()
      chownSync(file, 12345, 12345)
      const load = loadTypeScript({ CODEACT_CACHE_DIR: dir })
      expect(load.cache).toBe('ignored')
      expect(load.why).toMatch(/another user/)
      works(load)
      // Not replaced either: someone put it there.
      expect(statSync(file).uid).toBe(12345)
    },
    60_000,
  )

  it('never follows a link to a cache, nor uses one others can write, nor a directory others can enter', () => {
    const { dir, file } = primed()
    const elsewhere = join(dir, '..', 'elsewhere.v8cache')
    renameSync(file, elsewhere)
    symlinkSync(elsewhere, file)
    const linked = loadTypeScript({ CODEACT_CACHE_DIR: dir })
    expect(linked.cache).toBe('ignored')
    works(linked)

    const other = primed()
    chmodSync(other.file, 0o666)
    const shared = loadTypeScript({ CODEACT_CACHE_DIR: other.dir })
    expect(shared.cache).toBe('ignored')
    expect(shared.why).toMatch(/writable by other users/)
    chmodSync(other.file, 0o600)
    chmodSync(other.dir, 0o755)
    const open = loadTypeScript({ CODEACT_CACHE_DIR: other.dir })
    expect(open.cache).toBe('ignored')
    expect(open.why).toMatch(/0700/)
    expect(open.save()).toBeUndefined()
    works(open)
    // The same file, the directory private again: loaded (so the refusals above were the checks, not the file).
    chmodSync(other.dir, 0o700)
    expect(loadTypeScript({ CODEACT_CACHE_DIR: other.dir }).cache).toBe('loaded')
    expect(readdirSync(other.dir)).toHaveLength(1)
  }, 120_000)

  it('can be turned off', () => {
    const load = loadTypeScript({ CODEACT_CACHE_DIR: 'off' })
    expect(load.cache).toBe('off')
    works(load)
  }, 60_000)
})

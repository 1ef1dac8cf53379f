/**
 * The V8 code cache (program/ts-load.ts compileWithCache: TypeScript's, here on two small CommonJS modules so
 * each case is quick) from the side of someone who got at the cache directory: a code cache is code V8 runs, so whatever is
 * at a cache's path that is not the intact file this process wrote must be refused (or rebuilt), never loaded,
 * and must never crash or hang the process that loads it. The owner, permission, link and one-flipped-byte
 * cases are in test/sdk/ts-load.test.ts; these are the other shapes a tampered cache takes.
 *
 * Each case checks the module still works after the refusal, so a refusal that broke the loader fails here too.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileWithCache } from '../../program/ts-load.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const fresh = () => join(mkdtempSync(join(tmpdir(), 'codeact-cachetamper-')), 'cache')

/** Two CommonJS modules of different lengths (V8 ties a cache to its source's length): `count` each. */
const modules = mkdtempSync(join(tmpdir(), 'codeact-cachemods-'))
const ONE = join(modules, 'one.cjs')
const TWO = join(modules, 'two.cjs')
writeFileSync(ONE, "exports.count = (s) => s.split(';').filter((x) => x.trim() !== '').length\n")
writeFileSync(
  TWO,
  "'use strict'\nfunction count(s) {\n  return s.split(';').map((x) => x.trim()).filter(Boolean).length\n}\nexports.count = count\n",
)

interface Counter {
  count(s: string): number
}

/** `path` loaded with its cache in `dir` (what loadTypeScript does for TypeScript). */
function loadCached(path: string, dir: string) {
  const compiled = compileWithCache(path, dir, path === ONE ? 'one' : 'two')
  return { ...compiled, module: compiled.exports as Counter, save: () => compiled.write() }
}
const counts = (m: Counter) => expect(m.count('const a = 1; a + 1')).toBe(2)

/** A directory with ONE's intact cache in it, and that file's path. */
function primedOne(): { dir: string; file: string } {
  const dir = fresh()
  const file = loadCached(ONE, dir).save()
  if (file === undefined) throw new Error('the cache was not written')
  return { dir, file }
}

/**
 * `path` loaded through the built dist/ in a fresh process (killed after 20 s: a hang fails the test, not
 * the run), used once, its cache then written when `save`: what its load said about the cache.
 */
function loadInChild(path: string, dir: string, save = false): { cache: string; why?: string; counted: number; saved?: string } {
  const script = `
    const { compileWithCache } = await import(${JSON.stringify(join(repo, 'dist/program/ts-load.js'))})
    const load = compileWithCache(${JSON.stringify(path)}, ${JSON.stringify(dir)}, ${JSON.stringify(path === ONE ? 'one' : 'two')})
    const counted = load.exports.count('const a = 1; a + 1')
    const saved = ${save} ? load.write() : undefined
    console.log(JSON.stringify({ cache: load.cache, why: load.why, counted, saved }))`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
  expect(child.signal, `the load of ${path} hung`).toBeNull()
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout) as { cache: string; why?: string; counted: number; saved?: string }
}

describe('a tampered code cache is refused or rebuilt, never loaded', () => {
  it('truncated to nothing, to its checksum alone, to one byte past it and to half: ignored as corrupt, rebuilt on save', () => {
    const { file } = primedOne()
    const size = readFileSync(file).length
    const dir = join(file, '..')
    for (const length of [0, 1, 32, 33, Math.floor(size / 2), size - 1]) {
      const intact = readFileSync(file)
      truncateSync(file, length)
      const load = loadCached(ONE, dir)
      expect(load.cache, `truncated to ${length}`).toBe('ignored')
      expect(load.why).toMatch(/corrupt/)
      counts(load.module)
      // Its own corrupt file: replaced with a good one (written fresh, not the truncated bytes reused).
      expect(load.save()).toBe(file)
      expect(loadCached(ONE, dir).cache).toBe('loaded')
      expect(readFileSync(file).length).toBeGreaterThan(32)
      writeFileSync(file, intact, { mode: 0o600 })
    }
  })

  // In a fresh process: in the one that compiled the module, V8's in-memory compilation cache answers the
  // second compile of the same source and never reads the cached data (so a same-process check says 'loaded').
  it("another module's intact cache swapped in (its checksum right): V8 refuses it, the module loads from source, and the file is rebuilt", () => {
    const { dir, file: oneFile } = primedOne()
    const twoFile = loadCached(TWO, dir).save()!
    expect(twoFile).toBeDefined()
    copyFileSync(oneFile, twoFile)
    // The checksum is the file's own, so only V8's check (its source's length) stands between this and the wrong code.
    expect(loadInChild(TWO, dir, true)).toEqual({ cache: 'rejected', counted: 2, saved: twoFile })
    expect(loadInChild(TWO, dir)).toEqual({ cache: 'loaded', counted: 2 })
  }, 60_000)

  it('a second name for the file (a hard link someone kept to rewrite it later): ignored, and not replaced', () => {
    const { dir, file } = primedOne()
    const other = join(dir, '..', 'kept-name')
    linkSync(file, other)
    const load = loadCached(ONE, dir)
    expect(load.cache).toBe('ignored')
    expect(load.why).toMatch(/hard links/)
    counts(load.module)
    // Not this process's to replace: no save is wanted, and the linked file is left as it was.
    expect(load.wanted).toBe(false)
    expect(readFileSync(other).equals(readFileSync(file))).toBe(true)
    rmSync(other)
    expect(loadCached(ONE, dir).cache).toBe('loaded')
  })

  it('a directory where the file should be: ignored, the module loads, nothing throws', () => {
    const { dir, file } = primedOne()
    rmSync(file)
    mkdirSync(file)
    const load = loadCached(ONE, dir)
    expect(load.cache).toBe('ignored')
    counts(load.module)
    expect(() => load.save()).not.toThrow()
  })

  // Breaks without O_NONBLOCK on the open in program/ts-load.ts readCache: opening a FIFO for reading blocks until a
  // writer comes, so the load (TypeScript's, in the checker's thread) hung for ever.
  it('a named pipe where the file should be: the load does not block on it (the built dist/)', () => {
    const { dir, file } = primedOne()
    rmSync(file)
    // Through the shell: Node has no mkfifo of its own.
    execFileSync('/bin/sh', ['-c', 'mkfifo "$1"', 'sh', file])
    expect(loadInChild(ONE, dir)).toEqual({ cache: 'ignored', why: 'the cache file is not a regular file', counted: 2 })
  }, 30_000)
})

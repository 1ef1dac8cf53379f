/**
 * The V8 code caches (sdk/ts-load.ts compileWithCache: TypeScript's, and Babel's and acorn's for the check-off
 * path) from the side of someone who got at the cache directory: a code cache is code V8 runs, so whatever is
 * at a cache's path that is not the intact file this process wrote must be refused (or rebuilt), never loaded,
 * and must never crash or hang the process that loads it. The owner, permission, link and one-flipped-byte
 * cases are in test/sdk/ts-load.test.ts and parser-load.test.ts; these are the other shapes a tampered cache takes.
 *
 * Each case checks the module still works after the refusal, so a refusal that broke the loader fails here too.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadCached } from '../../sdk/lite/parser-load.js'

type Acorn = typeof import('acorn')
type Babel = typeof import('@babel/parser')
const repo = fileURLToPath(new URL('../../', import.meta.url))
const fresh = () => join(mkdtempSync(join(tmpdir(), 'codeact-cachetamper-')), 'cache')
const acornParses = (acorn: Acorn) => expect(acorn.parse('const a = 1; a + 1', { ecmaVersion: 'latest' }).body).toHaveLength(2)

/** A directory with acorn's intact cache in it, and that file's path. */
function primedAcorn(): { dir: string; file: string } {
  const dir = fresh()
  const file = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).save()
  if (file === undefined) throw new Error('the cache was not written')
  expect(loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).cache).toBe('loaded')
  return { dir, file }
}

/**
 * `specifier` loaded through the built dist/ in a fresh process (killed after 20 s: a hang fails the test, not
 * the run), used once, its cache then written when `save`: what its load said about the cache.
 */
function loadInChild(
  specifier: 'acorn' | '@babel/parser',
  dir: string,
  save = false,
): { cache: string; why?: string; parsed: number; saved?: string } {
  const use =
    specifier === 'acorn'
      ? "load.module.parse('const a = 1; a + 1', { ecmaVersion: 'latest' }).body.length"
      : "load.module.parse('const a: number = 1', { plugins: ['typescript'] }).program.body.length"
  const script = `
    const { loadCached } = await import(${JSON.stringify(join(repo, 'dist/sdk/lite/parser-load.js'))})
    const load = loadCached(${JSON.stringify(specifier)}, { CODEACT_CACHE_DIR: ${JSON.stringify(dir)} })
    const parsed = ${use}
    const saved = ${save} ? load.save() : undefined
    console.log(JSON.stringify({ cache: load.cache, why: load.why, parsed, saved }))`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
  expect(child.signal, `the load of ${specifier} hung`).toBeNull()
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout) as { cache: string; why?: string; parsed: number; saved?: string }
}

describe('a tampered code cache is refused or rebuilt, never loaded', () => {
  it('truncated to nothing, to its checksum alone, to one byte past it and to half: ignored as corrupt, rebuilt on save', () => {
    const { file } = primedAcorn()
    const size = readFileSync(file).length
    const dir = join(file, '..')
    for (const length of [0, 1, 32, 33, Math.floor(size / 2), size - 1]) {
      const intact = readFileSync(file)
      truncateSync(file, length)
      const load = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
      expect(load.cache, `truncated to ${length}`).toBe('ignored')
      expect(load.why).toMatch(/corrupt/)
      acornParses(load.module)
      // Its own corrupt file: replaced with a good one (written fresh, not the truncated bytes reused).
      expect(load.save()).toBe(file)
      expect(loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).cache).toBe('loaded')
      expect(readFileSync(file).length).toBeGreaterThan(32)
      writeFileSync(file, intact, { mode: 0o600 })
    }
  })

  // In a fresh process: in the one that compiled the module, V8's in-memory compilation cache answers the
  // second compile of the same source and never reads the cached data (so a same-process check says 'loaded').
  it("another module's intact cache swapped in (its checksum right): V8 refuses it, the module loads from source, and the file is rebuilt", () => {
    const { dir, file: acornFile } = primedAcorn()
    const babelFile = loadCached<Babel>('@babel/parser', { CODEACT_CACHE_DIR: dir }).save()!
    expect(babelFile).toBeDefined()
    copyFileSync(acornFile, babelFile)
    // The checksum is the file's own, so only V8's check (its source's length) stands between this and a wrong parser.
    expect(loadInChild('@babel/parser', dir, true)).toEqual({ cache: 'rejected', parsed: 1, saved: babelFile })
    expect(loadInChild('@babel/parser', dir)).toEqual({ cache: 'loaded', parsed: 1 })
  }, 60_000)

  it('a second name for the file (a hard link someone kept to rewrite it later): ignored, and not replaced', () => {
    const { dir, file } = primedAcorn()
    const other = join(dir, '..', 'kept-name')
    linkSync(file, other)
    const load = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
    expect(load.cache).toBe('ignored')
    expect(load.why).toMatch(/hard links/)
    acornParses(load.module)
    // Not this process's to replace: no save is wanted, and the linked file is left as it was.
    load.saveAfterUse()
    expect(readFileSync(other).equals(readFileSync(file))).toBe(true)
    rmSync(other)
    expect(loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).cache).toBe('loaded')
  })

  it('a directory where the file should be: ignored, the module loads, nothing throws', () => {
    const { dir, file } = primedAcorn()
    rmSync(file)
    mkdirSync(file)
    const load = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
    expect(load.cache).toBe('ignored')
    acornParses(load.module)
    expect(() => load.save()).not.toThrow()
  })

  // Breaks without O_NONBLOCK on the open in sdk/ts-load.ts readCache: opening a FIFO for reading blocks until a
  // writer comes, so the load (the host's main thread, for the check-off parsers) hung for ever.
  it('a named pipe where the file should be: the load does not block on it (the built dist/)', () => {
    const { dir, file } = primedAcorn()
    rmSync(file)
    // Through the shell: Node has no mkfifo of its own.
    execFileSync('/bin/sh', ['-c', 'mkfifo "$1"', 'sh', file])
    expect(loadInChild('acorn', dir)).toEqual({ cache: 'ignored', why: 'the cache file is not a regular file', parsed: 2 })
  }, 30_000)
})

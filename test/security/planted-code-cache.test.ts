/**
 * A V8 code cache planted by a program (issue 34): with `--workspace ~`, codeact's cache directory
 * (~/.cache/codeact) is inside the workspace, and a code cache is code the host runs. The program writes a
 * cache file of the right name, owned by the user, mode 0600, with the checksum the file format asks for:
 * the next process that loads the parser (here a small module through the same loader) must not load it.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { compileWithCache } from '../../program/ts-load.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})
// A small CommonJS module stands for the parser (V8 ties a cache to its source, so any module will do).
const modules = mkdtempSync(join(tmpdir(), 'codeact-planted-mod-'))
made.push(modules)
const MODULE = join(modules, 'count.cjs')
writeFileSync(MODULE, "exports.count = (s) => s.split(';').filter((x) => x.trim() !== '').length\n")
const cached = (dir: string) => compileWithCache(MODULE, dir, 'count', { ...process.env, CODEACT_CACHE_DIR: dir })

const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'codeact-planted-cache-'))
  made.push(d)
  return join(d, 'cache')
}

/** The module loaded through the built dist/ in a fresh process (V8 reads cached data only there): what its load said. */
function loadInChild(dir: string): { cache: string; why?: string } {
  const script = `
    const { compileWithCache } = await import(${JSON.stringify(join(repo, 'dist/program/ts-load.js'))})
    const load = compileWithCache(${JSON.stringify(MODULE)}, ${JSON.stringify(dir)}, 'count', { ...process.env, CODEACT_CACHE_DIR: ${JSON.stringify(dir)} })
    if (load.exports.count('a; b') !== 2) throw new Error('the module does not work')
    console.log(JSON.stringify({ cache: load.cache, why: load.why }))`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout) as { cache: string; why?: string }
}

describe('a code cache a program planted is never loaded', () => {
  it('bytes V8 would run, under the checksum of the file format, at the name codeact reads', () => {
    // The attacker's bytes: a cache V8 accepts for the module (here made by codeact in a folder of the attacker's).
    const theirs = fresh()
    const file = cached(theirs).write()!
    const data = readFileSync(file).subarray(32)
    const victim = fresh()
    const target = cached(victim).write()!
    writeFileSync(target, Buffer.concat([createHash('sha256').update(data).digest(), data]), { mode: 0o600 })
    const load = loadInChild(victim)
    expect(load.cache, 'the planted cache was loaded').not.toBe('loaded')
    expect(load).toEqual({ cache: 'ignored', why: expect.stringMatching(/MAC does not match/) })
  })

  it('a cache codeact signed itself still loads', () => {
    const dir = fresh()
    cached(dir).write()
    expect(loadInChild(dir).cache).toBe('loaded')
  })
})

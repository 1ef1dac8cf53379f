/**
 * A V8 code cache planted by a program (issue 34): with `--workspace ~`, codeact's cache directory
 * (~/.cache/codeact) is inside the workspace, and a code cache is code the host runs. The program writes a
 * cache file of the right name, owned by the user, mode 0600, with the checksum the file format asks for:
 * the next process that loads the parser must not load it.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadCached } from '../../sdk/lite/parser-load.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})
const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'codeact-planted-cache-'))
  made.push(d)
  return join(d, 'cache')
}

/** acorn loaded through the built dist/ in a fresh process (V8 reads cached data only there): what its load said. */
function loadInChild(dir: string): { cache: string; why?: string } {
  const script = `
    const { loadCached } = await import(${JSON.stringify(join(repo, 'dist/sdk/lite/parser-load.js'))})
    const load = loadCached('acorn', { ...process.env, CODEACT_CACHE_DIR: ${JSON.stringify(dir)} })
    load.module.parse('1', { ecmaVersion: 'latest' })
    console.log(JSON.stringify({ cache: load.cache, why: load.why }))`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout) as { cache: string; why?: string }
}

describe('a code cache a program planted is never loaded', () => {
  it('bytes V8 would run, under the checksum of the file format, at the name codeact reads', () => {
    // The attacker's bytes: a cache V8 accepts for acorn (here made by codeact in a folder of the attacker's).
    const theirs = fresh()
    const file = loadCached('acorn', { ...process.env, CODEACT_CACHE_DIR: theirs }).save()!
    const data = readFileSync(file).subarray(32)
    const victim = fresh()
    const target = loadCached('acorn', { ...process.env, CODEACT_CACHE_DIR: victim }).save()!
    writeFileSync(target, Buffer.concat([createHash('sha256').update(data).digest(), data]), { mode: 0o600 })
    const load = loadInChild(victim)
    expect(load.cache, 'the planted cache was loaded').not.toBe('loaded')
    expect(load).toEqual({ cache: 'ignored', why: expect.stringMatching(/MAC does not match/) })
  })

  it('a cache codeact signed itself still loads', () => {
    const dir = fresh()
    loadCached('acorn', { ...process.env, CODEACT_CACHE_DIR: dir }).save()
    expect(loadInChild(dir).cache).toBe('loaded')
  })
})

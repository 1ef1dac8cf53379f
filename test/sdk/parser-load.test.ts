/**
 * The check-off path's parsers (Babel's, acorn) load with a V8 code cache, under TypeScript's cache rules
 * (sdk/ts-load.ts): written privately after first use, used the next time; a corrupt cache is ignored and the
 * parser still loads from source; `CODEACT_CACHE_DIR=off` uses none. A process that prepares one program in
 * its own thread (as `codeact run --typecheck off` does) leaves both caches behind for the next.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadCached } from '../../sdk/lite/parser-load.js'

type Acorn = typeof import('acorn')
const repo = fileURLToPath(new URL('../../', import.meta.url))
const fresh = () => join(mkdtempSync(join(tmpdir(), 'codeact-parsercache-')), 'cache')
const parses = (acorn: Acorn) => expect(acorn.parse('(async function () { return 1 })', { ecmaVersion: 'latest' }).body).toHaveLength(1)

describe('loading the lite parsers with a code cache', () => {
  it('writes the cache privately after a use and loads from it the next time', () => {
    const dir = fresh()
    const first = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
    expect(first.cache).toBe('missing')
    parses(first.module)
    const file = first.save()
    expect(file).toBeDefined()
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(file!).mode & 0o777).toBe(0o600)
    const second = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
    expect(second.cache).toBe('loaded')
    parses(second.module)
  })

  it('ignores a corrupt cache, still loads the parser, and replaces its own corrupt file', () => {
    const dir = fresh()
    const file = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).save()!
    const bytes = readFileSync(file)
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10)
    writeFileSync(file, bytes, { mode: 0o600 })
    const load = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir })
    expect(load.cache).toBe('ignored')
    expect(load.why).toMatch(/corrupt/)
    parses(load.module)
    expect(load.save()).toBe(file)
    expect(loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: dir }).cache).toBe('loaded')
  })

  it('uses no cache with CODEACT_CACHE_DIR=off', () => {
    const load = loadCached<Acorn>('acorn', { CODEACT_CACHE_DIR: 'off' })
    expect(load.cache).toBe('off')
    expect(load.save()).toBeUndefined()
    parses(load.module)
  })

  it("leaves Babel's and acorn's caches after one program prepared in the host's thread (the built dist/)", () => {
    const dir = fresh()
    const script = `
      const { prepareInHost, hostPrepareReady } = await import(${JSON.stringify(join(repo, 'dist/sdk/host-prepare.js'))})
      await hostPrepareReady
      const r = await prepareInHost('return 1 + 1', false)
      console.log(JSON.stringify(r.compiled.ok))`
    const env = { ...process.env, CODEACT_CACHE_DIR: dir }
    const run = () => execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env, timeout: 60_000 })
    expect(run().trim()).toBe('true')
    const files = readdirSync(dir).sort()
    expect(files).toHaveLength(2)
    expect(files[0]).toMatch(/^_babel_parser-[0-9a-f]{16}\.v8cache$/)
    expect(files[1]).toMatch(/^acorn-[0-9a-f]{16}\.v8cache$/)
    const written = files.map((f) => statSync(join(dir, f)).mtimeMs)
    // The next process loads them (nothing to write: the files stay as they were).
    expect(run().trim()).toBe('true')
    expect(readdirSync(dir).sort()).toEqual(files)
    expect(files.map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(written)
  }, 120_000)
})

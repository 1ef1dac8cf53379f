/**
 * The check-off path's parsers, Babel's and acorn (both one CommonJS file, requiring nothing), loaded with a
 * V8 code cache as TypeScript is (sdk/ts-load.ts). A fresh process otherwise compiles each of their functions
 * on its first call: the first programs it prepares paid for it (on this project's VM, under load: loading
 * both 41–85 ms → 14–17 ms with a cache, Babel's first parse 7–28 ms → 4–6 ms, the next few programs'
 * new syntax ~5–24 ms → ~1 ms each) — in `codeact run`, whose one program is such a first.
 *
 * A code cache is code, so the same rules hold as for TypeScript's, with ts-load.ts's own checks: read only
 * from the private cache directory (`CODEACT_CACHE_DIR`, `off` turns it off), only a file this user owns,
 * no one else can write, not a link, whose checksum matches; anything else is ignored and the module is
 * compiled from source. The cache is written after the module's first use and its hundredth (saveAfterUse:
 * on the next idle turn, so it holds the functions those uses compiled), to a temporary file renamed into place.
 */
import { createRequire } from 'node:module'
import { type CodeCacheState, cacheDirectory, compileWithCache } from '../ts-load.js'

/**
 * After which uses the cache is written (a process that loaded without one): the first, so that even a
 * one-program process (`codeact run`) leaves one behind, and again once more of the parser has been
 * compiled (the functions other syntax needs), a superset of the first.
 */
const SAVES_AT = [1, 100]

export interface CachedModule<T> {
  module: T
  cache: CodeCacheState
  why?: string
  /** Writes the cache now; the file written, or undefined (no cache wanted, or it could not be written). */
  save(): string | undefined
  /** After a load without a usable cache: writes it on the next idle turn after the uses SAVES_AT counts. Cheap to call on every use. */
  saveAfterUse(): void
}

/** `specifier` (a CommonJS package that requires nothing at load) compiled with its code cache when a trustworthy one is there; never throws for the cache's sake. */
export function loadCached<T>(specifier: string, env: NodeJS.ProcessEnv = process.env): CachedModule<T> {
  const require = createRequire(import.meta.url)
  const dir = cacheDirectory(env)
  if (dir === undefined) return { module: require(specifier) as T, cache: 'off', save: () => undefined, saveAfterUse: () => {} }
  const compiled = compileWithCache(require.resolve(specifier), dir, specifier.replace(/[^\w.-]/g, '_'), env)
  let writes = 0
  const save = () => {
    if (writes >= SAVES_AT.length) return undefined
    writes++
    return compiled.write()
  }
  let uses = 0
  const saveAfterUse = () => {
    if (!compiled.wanted || uses > SAVES_AT[SAVES_AT.length - 1]!) return
    uses++
    if (SAVES_AT.includes(uses)) setImmediate(save).unref()
  }
  const { cache, why } = compiled
  return { module: compiled.exports as T, cache, ...(why !== undefined ? { why } : {}), save, saveAfterUse }
}

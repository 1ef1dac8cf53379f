/**
 * Dependencies loaded where they are first needed instead of at import: zod where a zod schema is first met
 * or a workspace made (a runtime whose tools are JSON Schema, or that has none, never loads it: see
 * bench/runtime-rss.ts), `diff` at a run's first change, `ignore` at the first
 * `.gitignore`, the source-map reader at the first position mapped back (most runs map none). The callers are synchronous (`tools.register`, `createWorkspace` …), so the module is
 * required, not imported: the ES module itself where Node can require one (≥ 20.19 / 22.12: the instance an
 * `import` of it shares), else the package's CommonJS build. zod works either way on any zod schema (its
 * functions read `schema._zod`, its metadata registry lives on globalThis); the CommonJS fallback only
 * costs a second copy beside a user's own `import 'zod'`.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type * as TraceMapping from '@jridgewell/trace-mapping'
import type * as Diff from 'diff'
import type IgnoreFactory from 'ignore'
import type * as Zod from 'zod'
import type * as ZodCore from 'zod/v4/core'

const require = createRequire(import.meta.url)
const loaded = new Map<string, unknown>()

function load<T>(specifier: string): T {
  if (loaded.has(specifier)) return loaded.get(specifier) as T
  let module: unknown
  try {
    module = require(fileURLToPath(import.meta.resolve(specifier)))
  } catch {
    module = require(specifier)
  }
  loaded.set(specifier, module)
  return module as T
}

/** zod's classic API (`z`), for the workspace's own tools. */
export const zodApi = (): typeof Zod.z => load<typeof Zod>('zod').z

/** zod's core, for toJSONSchema of a zod schema that has no method of its own (zod/mini, zod before 4.2). */
export const zodCore = (): typeof ZodCore => load<typeof ZodCore>('zod/v4/core')

/** @jridgewell/trace-mapping (TraceMap, originalPositionFor). */
export const traceMapping = (): typeof TraceMapping => load<typeof TraceMapping>('@jridgewell/trace-mapping')

/** The `diff` package. */
export const diffModule = (): typeof Diff => load<typeof Diff>('diff')

/** The `ignore` package's factory (a CommonJS module: its export is the function, also as `default`). */
export function ignoreFactory(): typeof IgnoreFactory {
  const m = load<typeof IgnoreFactory & { default?: typeof IgnoreFactory }>('ignore')
  return m.default ?? m
}

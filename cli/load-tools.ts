/**
 * Loads a `--tools` module (.ts, .mts, .js, .mjs). TypeScript is bundled by esbuild next to the original
 * (so its imports resolve from the same place), imported, and the temporary file removed.
 */
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AnyToolDefinition } from '../vocabulary/types.js'

export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const path = resolve(file)
  const ext = extname(path)
  let mod: { default?: unknown }
  if (ext === '.ts' || ext === '.mts' || ext === '.cts' || ext === '.tsx') {
    const out = join(dirname(path), `.${basename(path, ext)}.${randomUUID().slice(0, 8)}.codeact.mjs`)
    try {
      // esbuild is loaded only for a --tools module that needs bundling, not on every start-up.
      const { build } = await import('esbuild')
      await build({
        entryPoints: [path],
        outfile: out,
        bundle: true,
        format: 'esm',
        platform: 'node',
        packages: 'external',
        target: 'node20',
        logLevel: 'silent',
      })
      mod = (await import(pathToFileURL(out).href)) as { default?: unknown }
    } finally {
      await rm(out, { force: true })
    }
  } else {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown }
  }
  const exported = mod.default
  if (Array.isArray(exported)) return exported as AnyToolDefinition[]
  if (exported && typeof exported === 'object') return Object.values(exported) as AnyToolDefinition[]
  throw new Error(`${file}: the default export must be an array (or a record) of tool definitions`)
}

/**
 * Loads a `--tools` module (.ts, .mts, .js, .mjs). TypeScript is bundled by esbuild next to the original
 * (so its imports resolve from the user's project, as they would for the original), imported, and the
 * temporary file removed. A package the project does not have but codeact does (`zod`, `codeact` itself
 * under pnpm, whose node_modules holds only direct dependencies) resolves to codeact's own copy.
 */
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Plugin } from 'esbuild'
import type { AnyToolDefinition } from '../vocabulary/types.js'

const CODEACT_DIR = dirname(fileURLToPath(import.meta.url))
const PROBE = Symbol('probe')

/** Bare imports stay imports (external): the project's own package if it has one, else codeact's. */
const projectThenCodeact: Plugin = {
  name: 'codeact-tools-imports',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === PROBE) return undefined
      const probe = (resolveDir: string) => b.resolve(args.path, { kind: args.kind, resolveDir, pluginData: PROBE })
      const own = await probe(args.resolveDir)
      if (own.errors.length === 0) return { path: args.path, external: true }
      const ours = await probe(CODEACT_DIR)
      if (ours.errors.length === 0 && !ours.external) return { path: pathToFileURL(ours.path).href, external: true }
      return { path: args.path, external: true }
    })
  },
}

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
        plugins: [projectThenCodeact],
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

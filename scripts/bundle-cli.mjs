// After tsc (`npm run build`): the CLI's start-up path as a few files instead of ~220. `codeact run` loaded
// ~95 of dist/'s modules and ~120 of its dependencies' (zod alone 95) one by one before it could run
// anything; resolving, reading and linking them was most of its host-side start-up. esbuild (already a
// dependency) bundles dist/cli/main.js and dist/cli/prestart.js into dist/cli-bundle/, split so that what
// both entries use is one module instance (the prestarted child, the checker pool) and what a command loads
// lazily (the runtime, MCP, the REPL, Docker) stays a lazy chunk. dist/ keeps its layout for the library;
// bin/codeact.mjs uses the bundle when it is at least as new as dist/cli/main.js.
//
// Each module's `import.meta.url` is rewritten to its own dist/ file's URL, so every path found from it (the
// checker thread's entry, the isolate child's entry, createRequire) is what it was.
// Packages stay external (loaded from node_modules) except small pure-JS ones the start-up path imports.
import { rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'cli-bundle')
const INLINE = new Set(['zod', 'diff', 'ignore', '@jridgewell/trace-mapping', '@jridgewell/sourcemap-codec', '@jridgewell/resolve-uri'])

const packageName = (/** @type {string} */ spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')

/** @type {import('esbuild').Plugin} */
const plugin = {
  name: 'codeact-cli',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || !INLINE.has(packageName(args.path)) ? { path: args.path, external: true } : undefined,
    )
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' }
      const own = JSON.stringify(relative(outdir, args.path).split('\\').join('/'))
      return { contents: text.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`), loader: 'js' }
    })
  },
}

rmSync(outdir, { recursive: true, force: true }) // chunks are named by hash: no stale one may stay
await build({
  entryPoints: { main: join(root, 'dist/cli/main.js'), prestart: join(root, 'dist/cli/prestart.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  chunkNames: 'chunk-[hash]',
  plugins: [plugin],
  logLevel: 'warning',
})

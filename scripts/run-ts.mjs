#!/usr/bin/env node
// Runs a TypeScript file (an example) without a TS loader: esbuild bundles it next to the original, so its
// imports resolve from the same place, then it runs and the bundle is removed.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const [file, ...rest] = process.argv.slice(2)
if (!file) {
  console.error('usage: node scripts/run-ts.mjs FILE.ts [ARGS...]')
  process.exit(2)
}
const path = resolve(file)
const out = join(dirname(path), `.${basename(path, '.ts')}.run.mjs`)
await build({
  entryPoints: [path],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  packages: 'external',
  target: 'node20',
  logLevel: 'warning',
})
process.argv = [process.argv[0] ?? process.execPath, out, ...rest]
try {
  await import(pathToFileURL(out).href)
} finally {
  rmSync(out, { force: true })
}

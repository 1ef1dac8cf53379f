#!/usr/bin/env node
// `make bench` (after `npm run build`): compile each bench/*.ts with esbuild into dist/bench/ — beside the
// built runtime, so `../runtime/index.js` and the isolate's child process resolve exactly as when installed —
// then run dist/bench/index.js, which finds every suite there. Arguments name suites to run (default: all).
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { transform } from 'esbuild'

const out = 'dist/bench'
// Start clean: every file here is run as a suite, so a stale one would print stale numbers.
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
for (const file of readdirSync('bench').filter((f) => f.endsWith('.ts'))) {
  const { code } = await transform(readFileSync(`bench/${file}`, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: file,
  })
  writeFileSync(`${out}/${file.replace(/\.ts$/, '.js')}`, code)
}
const run = spawnSync(process.execPath, ['--no-node-snapshot', `${out}/index.js`, ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(run.status ?? 1)

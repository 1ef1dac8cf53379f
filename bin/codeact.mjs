#!/usr/bin/env node
// The CLI entry: runs the built JS (npm ci / npm run build produce dist/). The build also bundles the CLI's
// start-up path (scripts/bundle-cli.mjs: a few files instead of ~220 modules); it is used when it is at least
// as new as tsc's output, else dist/cli/ itself. `codeact run` starts its isolate child and checker thread
// (with `--typecheck off`: loads the in-host prepare's parsers instead) first (cli/prestart.ts), so they come
// up while the rest of the CLI loads.
import { statSync } from 'node:fs'
import v8 from 'node:v8'

const argv = process.argv.slice(2)
// A long-lived CLI process (`codeact mcp`, `codeact repl`) is ours, so its V8 flags are ours: its young
// generation stays at its initial size instead of doubling up to 2 × 16 MB as survivors accumulate (each
// run's log events survive; V8 grows it at every semi-space's worth of survivors and never shrinks it while
// runs keep coming). After 1,000 `run_code` calls a `codeact mcp` process is 172–176 MB instead of 188–191
// (3 each, alternated, load ~12); a library host doing the same runs 75 MB instead of 86 (4 MB of young
// generation instead of 16, 32 from ~2,500 runs on), its warm run p50 unchanged within noise (0.93–1.0×).
// Newer V8s clamp the factor to 2 (a no-op there; the flag exists in all, so V8 prints nothing to stdout,
// which is `codeact mcp`'s protocol stream). The library sets no flag in a user's process.
if (argv[0] === 'mcp' || argv[0] === 'repl') v8.setFlagsFromString('--semi-space-growth-factor=1')
const mtime = (/** @type {string} */ path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1
const dir = mtime('../dist/cli-bundle/main.js') >= mtime('../dist/cli/main.js') ? '../dist/cli-bundle/' : '../dist/cli/'
if (argv[0] === 'run') (await import(new URL(`${dir}prestart.js`, import.meta.url).href)).prestartFromArgv(argv.slice(1))
const { main } = await import(new URL(`${dir}main.js`, import.meta.url).href)

process.exitCode = await main(argv)

#!/usr/bin/env node
// The CLI entry: runs the built JS (npm ci / npm run build produce dist/). The build also bundles the CLI's
// start-up path (scripts/bundle-cli.mjs: a few files instead of ~220 modules); it is used when it is at least
// as new as tsc's output, else dist/cli/ itself. `codeact run` starts its isolate child and checker thread
// (with `--typecheck off`: loads the in-host prepare's parsers instead) first (cli/prestart.ts), so they come
// up while the rest of the CLI loads.
import { statSync } from 'node:fs'

const argv = process.argv.slice(2)
const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1
const dir = mtime('../dist/cli-bundle/main.js') >= mtime('../dist/cli/main.js') ? '../dist/cli-bundle/' : '../dist/cli/'
if (argv[0] === 'run') (await import(new URL(`${dir}prestart.js`, import.meta.url))).prestartFromArgv(argv.slice(1))
const { main } = await import(new URL(`${dir}main.js`, import.meta.url))

process.exitCode = await main(argv)

#!/usr/bin/env node
// `npm run lint:js`: every JavaScript file of the repository (.js, .mjs, .cjs — tracked or new, not ignored;
// node_modules, dist and generated folders aside) is type-checked by some tsconfig*.json at the root with
// `checkJs` (tsconfig.js.json holds the scripts, bin/, the lint configs and test fixtures). A file no
// config checks fails the step, named with the fix, so no logic can hide from tsc in plain JavaScript.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'

const root = resolve(process.argv[2] ?? '.')
const JS = /\.(mjs|cjs|js)$/
const SKIP = /(^|\/)(node_modules|dist|\.build|coverage)\//
const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
const files = listed
  .split('\0')
  .filter((f) => JS.test(f) && !SKIP.test(f))
  .filter((f) => existsSync(join(root, f))) // not deleted in the work tree

/** The files each root tsconfig with checkJs names (its include, resolved as tsc resolves it). */
const checked = new Set()
for (const name of readdirSync(root).filter((n) => /^tsconfig.*\.json$/.test(n))) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, name), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
  if (parsed?.options.checkJs !== true) continue
  for (const f of parsed.fileNames) checked.add(relative(root, f))
}

const unchecked = files.filter((f) => !checked.has(f))
if (unchecked.length > 0) {
  for (const f of unchecked)
    console.error(`${f}: no tsconfig type-checks it; add it to tsconfig.js.json's include (checkJs) or write it in TypeScript`)
  console.error(`lint:js: ${unchecked.length} JavaScript file(s) outside the type check`)
  process.exit(1)
}
console.log(`lint:js: ${files.length} JavaScript files, each type-checked`)

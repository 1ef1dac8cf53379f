#!/usr/bin/env node
// `make lint`: every check runs (so one run shows every finding), and any finding fails the step.
//   types  tsc --strict over the whole tree (tsconfig.json; tsconfig.js.json for the JavaScript)
//   js     every .js/.mjs/.cjs file is type-checked by a tsconfig with checkJs (scripts/unchecked-js.mjs)
//   code   Biome: formatting and lint rules     dead   knip: unused files, exports, dependencies
//   layers dependency-cruiser: imports point down, no cycles (type-only imports counted)
//   size   no function in runtime/ over 80 lines
import { spawnSync } from 'node:child_process'

const steps = ['types', 'js', 'code', 'layers', 'dead', 'size']
const failed = []
for (const step of steps) {
  const r = spawnSync('npm', ['run', '-s', `lint:${step}`], { stdio: 'inherit' })
  if (r.status !== 0) failed.push(step)
}
if (failed.length) {
  console.error(`\nlint: ${failed.length} of ${steps.length} checks found problems: ${failed.join(', ')}`)
  process.exit(1)
}
console.log(`lint: all ${steps.length} checks clean (${steps.join(', ')})`)

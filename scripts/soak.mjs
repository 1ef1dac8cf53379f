#!/usr/bin/env node
// `make soak` (after `npm run build`): thousands of mixed and fuzzed runs through one runtime.
//   node scripts/soak.mjs [runs=10000] [concurrency=4] [seed=1] [sandbox=isolate|docker]
// Compiles test/soak/soak-core.ts (and soak-memory.ts) with esbuild beside the built runtime (dist/test/soak/),
// runs it, and prints a table of windows (throughput, RSS, retained heap, child RSS, log size, handles) and
// the growth after warm-up; exits 1 if a run did not answer, a process or descriptor leaked, or memory grew.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { transform } from 'esbuild'

const [runs = 10000, concurrency = 4, seed = 1] = process.argv.slice(2, 5).map(Number)
const sandbox = process.argv[5] === 'docker' ? 'docker' : 'isolate'
mkdirSync('dist/test/soak', { recursive: true })
for (const name of ['soak-core', 'soak-memory']) {
  const { code } = await transform(readFileSync(`test/soak/${name}.ts`, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' })
  writeFileSync(`dist/test/soak/${name}.js`, code)
}
const { soak } = await import(pathToFileURL('dist/test/soak/soak-core.js').href)
console.log(`soak: ${runs} runs on the ${sandbox} backend`)
const r = await soak({ runs, concurrency, seed, sandbox, progress: (/** @type {string} */ line) => console.log(line) })
const fromFirst = r.rssEndMb - r.rssStartMb
// After warm-up (last quarter of windows against the second): RSS includes V8 sizing its heaps (it
// plateaus); the retained heap and the handle count are what a leak moves.
const GOAL = { rssMb: 25, heapRetainedMb: 10, childRssMb: 25, activeResources: 4 }
const grew = Object.entries(GOAL).filter(([k, limit]) => r.growth[k] > limit)
console.log(`\n${r.runs} runs in ${r.seconds.toFixed(1)} s (seed ${seed}, ${concurrency} at a time)`)
console.log('outcomes:', JSON.stringify(r.outcomes))
console.log(`not a RunResult: ${r.notResults}; unanswered calls: ${r.unanswered}`)
const f = (/** @type {number | undefined} */ n, d = 1) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d))
console.log('\n| runs | runs/s | RSS MB | heap MB | retained MB | child RSS MB | log events | handles |')
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const w of r.windows)
  console.log(
    `| ${w.runs} | ${f(w.runsPerSecond, 0)} | ${f(w.rssMb)} | ${f(w.heapTotalMb)} | ${f(w.heapRetainedMb)} | ${f(w.childRssMb)} | ${w.logEvents} | ${w.activeResources} |`,
  )
console.log(`\nRSS from the first run: ${f(r.rssStartMb)} MB -> ${f(r.rssEndMb)} MB (${f(fromFirst)} MB, warm-up included)`)
console.log(
  `growth after warm-up (the last quarter of windows − the second quarter; medians, the child's floor): RSS ${f(r.growth.rssMb)} MB (goal ≤ ${GOAL.rssMb}), retained heap ${f(r.growth.heapRetainedMb)} MB (≤ ${GOAL.heapRetainedMb}), child RSS ${f(r.growth.childRssMb)} MB (≤ ${GOAL.childRssMb}), handles ${f(r.growth.activeResources, 0)} (≤ ${GOAL.activeResources})`,
)
console.log(
  `open fds: ${r.fdStart} -> ${r.fdEnd}; sandbox processes/containers: at most ${r.childrenDuring} during, ${r.childrenAfterClose} after close`,
)
console.log(`throughput per window (runs/s): ${r.runsPerSecond.map((/** @type {number} */ n) => n.toFixed(0)).join(' ')}`)
if (grew.length > 0) console.log(`grew: ${grew.map(([k]) => k).join(', ')}`)
const bad = r.notResults > 0 || r.unanswered > 0 || r.childrenAfterClose > 0 || r.fdEnd - r.fdStart > 16 || grew.length > 0
process.exit(bad ? 1 : 0)

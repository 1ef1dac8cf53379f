#!/usr/bin/env node
// `make soak` (after `npm run build`): thousands of mixed and fuzzed runs through one runtime.
//   node scripts/soak.mjs [runs=10000] [concurrency=4] [seed=1] [sandbox=isolate|docker]
// Compiles test/soak/soak-core.ts with esbuild beside the built runtime (dist/test/soak/), runs it, and
// prints RSS, descriptors, processes and throughput; exits 1 if a run did not answer or something leaked.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { transform } from 'esbuild'

const [runs = 10000, concurrency = 4, seed = 1] = process.argv.slice(2, 5).map(Number)
const sandbox = process.argv[5] === 'docker' ? 'docker' : 'isolate'
const out = 'dist/test/soak/soak-core.js'
mkdirSync('dist/test/soak', { recursive: true })
const { code } = await transform(readFileSync('test/soak/soak-core.ts', 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' })
writeFileSync(out, code)
const { soak } = await import(pathToFileURL(out).href)
console.log(`soak: ${runs} runs on the ${sandbox} backend`)
const r = await soak({ runs, concurrency, seed, sandbox, progress: (line) => console.log(line) })
const growth = r.rssEndMb - r.rssStartMb
console.log(`\n${r.runs} runs in ${r.seconds.toFixed(1)} s (seed ${seed}, ${concurrency} at a time)`)
console.log('outcomes:', JSON.stringify(r.outcomes))
console.log(`not a RunResult: ${r.notResults}; unanswered calls: ${r.unanswered}`)
console.log(`RSS: ${r.rssStartMb.toFixed(1)} MB -> ${r.rssEndMb.toFixed(1)} MB (growth ${growth.toFixed(1)} MB, goal < 50)`)
console.log(
  `open fds: ${r.fdStart} -> ${r.fdEnd}; sandbox processes/containers: at most ${r.childrenDuring} during, ${r.childrenAfterClose} after close`,
)
console.log(`throughput per window (runs/s): ${r.runsPerSecond.map((n) => n.toFixed(0)).join(' ')}`)
const bad = r.notResults > 0 || r.unanswered > 0 || r.childrenAfterClose > 0 || r.fdEnd - r.fdStart > 16 || growth > 50
process.exit(bad ? 1 : 0)

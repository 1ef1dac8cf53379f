#!/usr/bin/env node
// The README's test command: build (the isolate's supervised child runs built JS), run every suite, say
// which suites were skipped and why, and end with the plain line "N passed, N failed, N skipped".
// In CI (CI=true) any skip is a failure: the Docker backend and bash under bubblewrap must really be tested.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dockerProbe } from './docker-probe.mjs'

function bwrapProbe() {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', 'true'], { encoding: 'utf8', timeout: 10_000 })
  if (r.error) return { available: false, reason: 'bwrap not found; apt-get install bubblewrap' }
  if (r.status !== 0) return { available: false, reason: `bwrap cannot start here: ${r.stderr.trim().split('\n')[0]}` }
  return { available: true }
}

const inCI = process.env.CI === 'true' || process.env.CI === '1'
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' })
if (build.status !== 0) {
  console.log('build failed')
  writeFileSync('.test-summary', '0 passed, 1 failed\n')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

const docker = await dockerProbe()
const env = { ...process.env, CODEACT_DOCKER: docker.available ? '1' : '0' }
const results = '.vitest-results.json'
rmSync(results, { force: true })
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)]
const run = spawnSync('npx', args, { stdio: 'inherit', env })

let passed = 0
let failed = 0
let skipped = 0
const skippedFiles = new Map()
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'))
  for (const file of report.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'passed') passed++
      else if (t.status === 'failed') failed++
      else {
        skipped++
        const name = file.name.replace(process.cwd() + '/', '')
        skippedFiles.set(name, (skippedFiles.get(name) ?? 0) + 1)
      }
    }
    // A file that failed to load has no assertions but counts as a failure.
    if ((file.assertionResults ?? []).length === 0 && file.status === 'failed') failed++
  }
} else {
  failed++
}

// Every skip names its reason; in CI nothing may be skipped (Docker and bubblewrap are installed there).
const bwrap = bwrapProbe()
if (skippedFiles.size) {
  console.log('\nSkipped suites:')
  for (const [file, n] of skippedFiles) {
    const why =
      file.includes('docker') && !docker.available
        ? `no Docker engine: ${docker.reason}`
        : file.startsWith('test/workspace/') && !bwrap.available
          ? bwrap.reason
          : 'skipped by the suite'
    console.log(`  ${file}: ${n} test(s) — ${why}`)
  }
}
if (!docker.available) console.log(`\nThe Docker suites did not run: ${docker.reason}. Install docker.io and start dockerd to run them.`)
if (!bwrap.available) console.log(`\nThe bash-under-bubblewrap tests did not run: ${bwrap.reason}.`)
if (inCI && (skipped > 0 || !docker.available || !bwrap.available)) {
  console.log('In CI every suite is required (Docker and bubblewrap included): counting the skips as a failure.')
  failed++
}
const summary = `${passed} passed, ${failed} failed, ${skipped} skipped`
writeFileSync('.test-summary', summary + '\n')
console.log(`\n${summary}`)
process.exit(failed > 0 || run.status !== 0 ? 1 : 0)

#!/usr/bin/env node
// The README's test command: build (the isolate's supervised child runs built JS), run every suite, say
// which suites were skipped and why, and end with the plain line "N passed, N failed, N skipped".
// In CI (CI=true) a skipped Docker suite is a failure: the Docker backend must really be tested there.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dockerProbe } from './docker-probe.mjs'

const inCI = process.env.CI === 'true' || process.env.CI === '1'
const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
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

let dockerSkipped = false
if (skippedFiles.size) {
  console.log('\nSkipped suites:')
  for (const [file, n] of skippedFiles) {
    const isDocker = file.includes('docker')
    dockerSkipped ||= isDocker
    const why = isDocker && !docker.available ? `no Docker engine: ${docker.reason}` : 'skipped by the suite'
    console.log(`  ${file}: ${n} test(s) — ${why}`)
  }
}
if (!docker.available) {
  console.log(`\nThe Docker suite did not run: ${docker.reason}. Install docker.io and start dockerd to run it.`)
  if (inCI) {
    console.log('In CI the Docker suite is required: counting it as a failure.')
    failed++
  }
} else if (dockerSkipped && inCI) {
  console.log('In CI the Docker suite is required, but some of it was skipped: counting it as a failure.')
  failed++
}
const summary = `${passed} passed, ${failed} failed, ${skipped} skipped`
writeFileSync('.test-summary', summary + '\n')
console.log(`\n${summary}`)
process.exit(failed > 0 || run.status !== 0 ? 1 : 0)

/**
 * What a runtime without a workspace keeps out of its process: staging, recovery and the changes' diffing
 * (runtime/changes/run-changes.ts, sandbox/workspace/staging/*) load with a workspace only. A fresh Node
 * process imports the built library, runs a program, and reports every module it resolved (a resolve
 * hook); with a workspace and `changes: 'atomic'` the same probe sees staging loaded and the run's write
 * staged, then applied (the test can fail either way).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LIBRARY, RESOLVE_RECORDER, runProbe } from './fixtures/module-probe.js'

const STAGING = /[\\/]dist[\\/](sandbox[\\/]workspace[\\/]staging[\\/]|runtime[\\/]changes[\\/]run-changes\.js)/
const root = mkdtempSync(join(tmpdir(), 'codeact-lazy-staging-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const probe = (workspace: boolean) => `${RESOLVE_RECORDER}
const { createRuntime } = await import(${JSON.stringify(LIBRARY)})
const rt = await createRuntime({ typecheck: 'off', ${workspace ? `workspace: { root: ${JSON.stringify(root)} }, changes: 'atomic'` : ''} })
const code = ${JSON.stringify(workspace ? "await tools.write_file({ path: 'note.txt', content: 'staged' })\nreturn 1" : 'return 1 + 1')}
const r = await rt.runCode(code)
await rt.close()
await new Promise((resolve) => setTimeout(resolve, 50))
console.log(JSON.stringify({ ok: r.ok, observation: r.observation, changes: r.changes ?? null, loaded: resolved }))
`

interface Probe {
  ok: boolean
  observation: string
  changes: { applied?: string; files?: unknown[] } | null
  loaded: string[]
}

function run(workspace: boolean): Promise<Probe> {
  return runProbe<Probe>(probe(workspace))
}

describe('a runtime without a workspace', () => {
  it('runs a program without loading staging, recovery or the changes’ diffing', async () => {
    const r = await run(false)
    expect(r.ok, r.observation).toBe(true)
    expect(r.loaded.filter((url) => STAGING.test(url))).toEqual([])
  }, 90_000)
})

describe('a runtime with a workspace', () => {
  it('loads staging, and an atomic run’s write lands when the run ends', async () => {
    const r = await run(true)
    expect(r.ok, r.observation).toBe(true)
    expect(r.loaded.some((url) => STAGING.test(url))).toBe(true)
    expect(readFileSync(join(root, 'note.txt'), 'utf8')).toBe('staged')
  }, 90_000)
})

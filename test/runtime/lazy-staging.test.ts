/**
 * What a runtime without a workspace keeps out of its process: staging, recovery and the changes' diffing
 * (runtime/changes/run-changes.ts, sandbox/workspace/staging/*) load with a workspace only. A fresh Node
 * process imports the built library, runs a program, and reports every module it resolved (a resolve
 * hook); with a workspace and `changes: 'atomic'` the same probe sees staging loaded and the run's write
 * staged, then applied (the test can fail either way).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const LIBRARY = new URL('../../dist/runtime/index.js', import.meta.url).href
const STAGING = /[\\/]dist[\\/](sandbox[\\/]workspace[\\/]staging[\\/]|runtime[\\/]changes[\\/]run-changes\.js)/
const root = mkdtempSync(join(tmpdir(), 'codeact-lazy-staging-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const probe = (workspace: boolean) => `
import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const resolved = []
port1.on('message', (url) => resolved.push(url))
port1.unref()
const hook = 'let port; export function initialize(d) { port = d.port }' +
  ' export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r }'
register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] })
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

async function run(workspace: boolean): Promise<Probe> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe(workspace)], { timeout: 60_000 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as Probe
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

/**
 * "Completed before the error": a run that fails or times out after some calls succeeded lists them, marks
 * the ones with side effects and tells the model not to repeat them — in the runtime's observation, a
 * session turn, the CLI's text for a person and MCP's run_code result.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { MAX_COMPLETED_LISTED } from '../../runtime/completed-calls.js'
import { testRuntime } from '../support/runtime.js'
import tools from './fixtures/refund-tools.js'

const REPO = join(import.meta.dirname, '..', '..')
const TOOLS = join(REPO, 'test', 'runtime', 'fixtures', 'refund-tools.ts')

const PROGRAM = `
const order = await tools.get_order({ order_id: 'A1' })
const refund = await tools.refund({ order_id: order.id, amount_cents: order.total_cents })
await tools.notify({ order_id: order.id })
const total = (order as any).totl_cents.toFixed(2)
return { refund, total }`

function expectCompletedList(text: string): void {
  const section = text.slice(text.indexOf('Completed before the error'))
  expect(section).toMatch(/^Completed before the error \(3 of 3 calls succeeded — do not repeat the 2 calls marked \[side effect\]/)
  expect(section).toContain('- get_order({"order_id":"A1"}) → {"id":"A1","total_cents":1250,"status":"paid"}')
  expect(section).toContain('- [side effect] refund({"order_id":"A1","amount_cents":1250}) → {"refund_id":"r-A1","amount_cents":1250}')
  expect(section).toContain('- [side effect] notify({"order_id":"A1"}) → {"sent":true}')
  expect(section).not.toContain('[side effect] get_order')
}

describe('a failed run lists the calls that completed before the error', () => {
  it('names the refund as done and marked, the read unmarked, and says not to repeat it', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.runCode(PROGRAM)
    expect(r.ok).toBe(false)
    expectCompletedList(r.observation)
    // Before the error line, so the model reads what happened before why it stopped.
    expect(r.observation.indexOf('Completed before the error')).toBeLessThan(r.observation.indexOf('Error (runtime'))
    expect(r.calls.find((c) => c.name === 'refund')?.sideEffects).toBe(true)
    expect(r.calls.find((c) => c.name === 'get_order')?.sideEffects).toBeUndefined()
  })

  it('lists them on a timed-out run too', async () => {
    const rt = await testRuntime({ tools, limits: { timeoutMs: 300 } })
    const r = await rt.runCode(`await tools.refund({ order_id: 'B2', amount_cents: 5 })\nwhile (true) {}`)
    expect(r.error?.kind).toBe('timeout')
    expect(r.observation).toContain('Completed before the error (1 of 1 calls succeeded — do not repeat the call marked [side effect]')
    expect(r.observation).toContain('- [side effect] refund({"order_id":"B2","amount_cents":5})')
  })

  it('says nothing of completed calls when the run ends ok', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.runCode(`await tools.refund({ order_id: 'C3', amount_cents: 5 })\nreturn 'done'`)
    expect(r.ok).toBe(true)
    expect(r.observation).not.toContain('Completed before the error')
  })

  it('caps the list, keeping the side effects and counting the reads it leaves out', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.runCode(`
for (let i = 0; i < 40; i++) await tools.get_order({ order_id: 'R' + i })
await tools.refund({ order_id: 'R39', amount_cents: 1 })
throw new Error('stop')`)
    const section = r.observation.slice(r.observation.indexOf('Completed before the error'))
    expect(section).toContain('(41 of 41 calls succeeded — do not repeat the call marked [side effect]')
    expect(section).toContain('[side effect] refund({"order_id":"R39","amount_cents":1})')
    expect(section.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(MAX_COMPLETED_LISTED)
    expect(section).toContain(`…and 21 more (get_order ×21, all reads); the list is capped at ${MAX_COMPLETED_LISTED} calls`)
  })

  it('lists them after a failed session turn', async () => {
    const rt = await testRuntime({ tools })
    const s = rt.session()
    expect((await s.runCode(`const order = await tools.get_order({ order_id: 'A1' })`)).ok).toBe(true)
    const turn = await s.runCode(`
const again = await tools.get_order({ order_id: order.id })
await tools.refund({ order_id: order.id, amount_cents: order.total_cents })
await tools.notify({ order_id: order.id })
const total = (order as any).totl_cents.toFixed(2)`)
    expect(turn.ok).toBe(false)
    expectCompletedList(turn.observation)
  })

  it('shows them to a person at the CLI', () => {
    const r = spawnSync(process.execPath, ['bin/codeact.mjs', 'run', '-', '--tools', TOOLS, '--typecheck=off'], {
      cwd: REPO,
      input: PROGRAM,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status).toBe(1)
    expectCompletedList(r.stdout + r.stderr)
  })

  it("puts them in MCP's run_code result", async () => {
    const client = new Client({ name: 'completed-calls', version: '1.0.0' })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO, 'test', 'mcp', 'fixtures', 'cli-entry.mjs'), '--tools', TOOLS, '--typecheck=off'],
      cwd: REPO,
      stderr: 'pipe',
    })
    await client.connect(transport)
    try {
      const r = (await client.callTool({ name: 'run_code', arguments: { code: PROGRAM } })) as CallToolResult
      expect(r.isError).toBe(true)
      expectCompletedList(r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'))
    } finally {
      await client.close()
    }
  })
})

/**
 * A loop that never advances — the same tool with the same arguments, asked again each time the last call
 * answered — is stopped at `maxIdenticalCalls` (`--max-identical-calls`, default 100) with EDQUOT naming the
 * call and the flag. A loop that advances, and a fan-out of the same call, are not.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../runtime/limits.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

let served = 0
const tools: AnyToolDefinition[] = [
  {
    name: 'list_orders',
    description: 'One page of orders; `next` is the page after it.',
    parameters: z.object({ page: z.number().int() }),
    annotations: { readOnlyHint: true },
    execute: ({ page }: { page: number }) => (served++, { items: [`o${page}`], next: page + 1 }),
  },
]

// The model's bug: `page` is never advanced, so every call asks for page 1 again.
const STUCK = `
let page = 1
const all: string[] = []
while (true) {
  const r = await tools.list_orders({ page })
  all.push(...r.items)
  if (!r.next || all.length > 10_000) break
}
return all.length`

describe('a run of identical calls', () => {
  it('stops a loop that never advances at the default, naming the call and the flag', async () => {
    const rt = await testRuntime({ tools })
    const before = served
    const r = await rt.runCode(STUCK)
    expect(r.ok).toBe(false)
    expect(r.error).toMatchObject({ kind: 'runtime', code: 'EDQUOT' })
    expect(r.error?.message).toContain(
      `called list_orders({"page":1}) ${DEFAULT_LIMITS.maxIdenticalCalls} times in a row with the same arguments`,
    )
    expect(r.error?.message).toContain('--max-identical-calls (limits.maxIdenticalCalls)')
    expect(served - before).toBe(DEFAULT_LIMITS.maxIdenticalCalls)
    expect(r.observation).toContain('Error (runtime')
  })

  it('lets a loop that advances make many more calls', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.runCode(
      `let n = 0\nfor (let page = 1; page <= 300; page++) n += (await tools.list_orders({ page })).items.length\nreturn n`,
    )
    expect(r).toMatchObject({ ok: true, value: 300 })
  })

  it('does not count the same call made many times at once (a fan-out)', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.runCode(`return (await Promise.all(Array.from({ length: 300 }, () => tools.list_orders({ page: 1 })))).length`)
    expect(r).toMatchObject({ ok: true, value: 300 })
  })

  it('starts the count again when another call comes between', async () => {
    const rt = await testRuntime({ tools, limits: { maxIdenticalCalls: 3 } })
    const r = await rt.runCode(
      `for (let i = 0; i < 10; i++) { await tools.list_orders({ page: 1 }); await tools.list_orders({ page: 2 }) }\nreturn 'ok'`,
    )
    expect(r).toMatchObject({ ok: true, value: 'ok' })
  })

  it('takes its limit from --max-identical-calls at the CLI', () => {
    const fixture = join(import.meta.dirname, 'fixtures', 'refund-tools.ts')
    const r = spawnSync(
      process.execPath,
      ['bin/codeact.mjs', 'run', '-', '--tools', fixture, '--typecheck=off', '--max-identical-calls', '5'],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        input: `for (;;) await tools.get_order({ order_id: 'A1' })`,
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    expect(r.status).toBe(1)
    expect(r.stdout).toContain('called get_order({"order_id":"A1"}) 5 times in a row with the same arguments')
    expect(r.stdout).toContain('Completed before the error (5 of 5 calls succeeded')
  })
})

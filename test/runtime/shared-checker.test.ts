/**
 * The checker threads are one pool per process (program/typecheck-pool.ts), shared by every runtime in it: each
 * request carries its runtime's own declarations. What sharing must never do: check one runtime's program
 * against another runtime's SDK. Two runtimes whose tools have the same name and different types, their
 * programs raced through the same threads: each program passes or fails against its own runtime's tool only.
 */
import { describe, expect, it } from 'vitest'
import { poolRequestsPosted } from '../../program/typecheck-pool.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

const lookup = (parameters: Record<string, unknown>, answer: unknown): AnyToolDefinition => ({
  name: 'lookup',
  description: 'Looks something up.',
  parameters,
  execute: () => answer,
})
const byId = lookup({ type: 'object', properties: { id: { type: 'number' } }, required: ['id'], additionalProperties: false }, 1)
const byName = lookup({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false }, 'x')

const ID_CALL = 'return await tools.lookup({ id: 7 })'
const NAME_CALL = 'return await tools.lookup({ name: "seven" })'
const ONLY_A = 'return await tools.only_a({})'

describe('checker threads shared by the runtimes of one process', () => {
  it("checks each runtime's programs against its own tools only, with requests of both in flight together", async () => {
    const onlyA: AnyToolDefinition = {
      name: 'only_a',
      description: 'A tool only runtime A has.',
      parameters: { type: 'object' },
      execute: () => 'a',
    }
    const a = await testRuntime({ tools: [byId, onlyA], typecheck: 'error' })
    const b = await testRuntime({ tools: [byName], typecheck: 'error' })
    const before = poolRequestsPosted()
    for (let round = 0; round < 3; round++) {
      const [aOwn, aOther, bOwn, bOther, bOnlyA] = await Promise.all([
        a.runCode(ID_CALL),
        a.runCode(NAME_CALL),
        b.runCode(NAME_CALL),
        b.runCode(ID_CALL),
        b.runCode(ONLY_A),
      ])
      expect(aOwn).toMatchObject({ ok: true, value: 1 })
      expect(bOwn).toMatchObject({ ok: true, value: 'x' })
      expect(aOther.error?.kind).toBe('type')
      expect(aOther.error?.message).toMatch(/name/)
      expect(bOther.error?.kind).toBe('type')
      expect(bOther.error?.message).toMatch(/id/)
      // B's SDK has no only_a, whatever A's check left in the thread.
      expect(bOnlyA.error?.kind).toBe('type')
      expect(bOnlyA.error?.message).toMatch(/only_a/)
      expect([aOther, bOther, bOnlyA].every((r) => r.calls.length === 0)).toBe(true)
    }
    // All of them went through this process's one pool (the threads both runtimes share).
    expect(poolRequestsPosted() - before).toBeGreaterThanOrEqual(15)
    expect(a.sdk.declarations()).not.toBe(b.sdk.declarations())
  })
})

/**
 * A tool whose parameters say only "an object" (`{ type: 'object' }`, perhaps with an empty `properties`) is
 * validated without ajv: the same answers and messages as ajv gives, and a process whose tools are all of
 * that kind never loads ajv (~90 ms of CPU at its first call).
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createValidator } from '../../runtime/validate.js'
import type { JsonSchema, JsonValue } from '../../vocabulary/types.js'

const LIBRARY = new URL('../../dist/runtime/index.js', import.meta.url).href
const inputs: JsonValue[] = [{}, { a: 1, b: [2] }, [], [{}], null, 5, 'text', true]

describe('a schema that says only "an object"', () => {
  it('answers every argument as ajv does, message included', () => {
    // `minProperties: 0` constrains nothing, and takes the schema to ajv.
    const viaAjv = createValidator({ type: 'object', minProperties: 0 })
    for (const schema of [{ type: 'object' }, { type: 'object', properties: {}, description: 'no arguments' }] as JsonSchema[]) {
      const direct = createValidator(schema)
      for (const args of inputs) expect(direct(args), JSON.stringify(args)).toEqual(viaAjv(args))
    }
  })

  it('leaves a schema with any constraint to ajv', () => {
    const required = createValidator({ type: 'object', properties: {}, required: ['a'] })
    expect(required({})).toEqual({ ok: false, message: 'invalid arguments: a: missing required field' })
    const closed = createValidator({ type: 'object', additionalProperties: false })
    expect(closed({ b: 1 }).ok).toBe(false)
  })

  it('a runtime whose tools take no arguments runs calls without loading ajv', async () => {
    const probe = `
      import { createRequire } from 'node:module'
      const { createRuntime } = await import(${JSON.stringify(LIBRARY)})
      const none = { name: 'none', description: 'No arguments.', parameters: { type: 'object', properties: {} }, execute: () => 7 }
      const rt = await createRuntime({ typecheck: 'off', tools: [none] })
      const r = await rt.runCode('const a = await tools.none({}); let refused; try { await tools.none([1]) } catch (e) { refused = e.code }; return [a, refused]')
      await rt.close()
      console.log(JSON.stringify({ value: r.value, observation: r.observation, loaded: Object.keys(createRequire(import.meta.url).cache) }))`
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], { timeout: 60_000 })
    const r = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { value: unknown; observation: string; loaded: string[] }
    expect(r.value, r.observation).toEqual([7, 'EINVAL'])
    expect(r.loaded.filter((file) => /[\\/]node_modules[\\/]ajv[\\/]/.test(file))).toEqual([])
  }, 90_000)
})

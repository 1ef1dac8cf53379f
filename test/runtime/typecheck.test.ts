import { describe, expect, it } from 'vitest'
import { basicTools } from '../support/tools.js'
import { testRuntime } from '../support/runtime.js'

describe('type-check before running: a type error stops the run before any side effect', () => {
  it('stops a wrong argument type with kind "type", nothing executed, the line and source shown', async () => {
    let calls = 0
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    rt.hooks.on('pre-execute', () => void calls++)
    const r = await rt.runCode('console.log("side effect")\nconst n = await tools.add({ a: 1, b: "2" })\nreturn n')
    expect(r.error?.kind).toBe('type')
    expect(r.error?.message).toMatch(/2:\d+/)
    expect(r.error?.message).toContain('tools.add({ a: 1, b: "2" })')
    expect(r.logs).toEqual([])
    expect(calls).toBe(0)
    expect(r.observation).toMatch(/^Error \(type\): the program does not type-check; nothing ran\./)
  })

  it.each([
    ['a missing required field', 'await tools.add({ a: 1 })'],
    ['a misspelled tool', 'await tools.ad({ a: 1, b: 2 })'],
    ['a method the typed result does not have', 'const n = await tools.add({ a: 1, b: 2 })\nreturn n.toFixedd(2)'],
    ['a forgotten await', 'const n: number = tools.add({ a: 1, b: 2 })'],
  ])('stops %s', async (_what, code) => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const r = await rt.runCode(code)
    expect(r.error?.kind).toBe('type')
    expect(r.calls).toEqual([])
  })

  it('passes a correct program in full TypeScript syntax', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const r = await rt.runCode(`
      enum Op { Add }
      interface Pair<T> { a: T; b: T }
      class Calc { constructor(private readonly op: Op) {} async run(p: Pair<number>) { return this.op === Op.Add ? await tools.add(p) : 0 } }
      const pairs = [{ a: 1, b: 2 }, { a: 3, b: 4 }] satisfies Pair<number>[]
      const sums = await Promise.all(pairs.map((p) => new Calc(Op.Add).run(p)))
      const note = await tools.read_note({ key: 'k' })
      if (typeof note === 'object' && note !== null) console.log('note ok')
      try { await tools.read_note({ key: 'missing' }) } catch (e) { if (e instanceof ToolCallError) console.log(e.code) }
      return sums`)
    expect(r.error).toBeNull()
    expect(r.value).toEqual([3, 7])
  })

  it('in warn mode runs anyway and appends the diagnostics to the observation', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'warn' })
    const r = await rt.runCode(
      'const n = await tools.add({ a: 1, b: 2 })\nconsole.log(n.toFixedd)\ntry { await tools.add({ a: 1, b: "2" }) } catch {}\nreturn n',
    )
    expect(r.ok).toBe(true)
    expect(r.value).toBe(3)
    // A field a number lacks (line 2) blocks in `error` mode; in `warn` mode both lines are warnings.
    expect(r.observation).toMatch(/Type-check warnings \(the program ran anyway\):\n2:\d+ [^\n]*toFixedd[\s\S]*\n3:\d+/)
  })

  it('in off mode does not check at all', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'off' })
    const r = await rt.runCode('const n: string = await tools.add({ a: 1, b: 2 })\nreturn n')
    expect(r.value).toBe(3)
    expect(r.observation).not.toContain('Type-check')
  })

  it('follows the registry: a tool registered later is known to the checker', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    expect((await rt.runCode('return await tools.later({})')).error?.kind).toBe('type')
    rt.tools.register([
      { name: 'later', description: 'Registered after creation.', parameters: { type: 'object', properties: {} }, execute: () => 'here' },
    ])
    const r = await rt.runCode('return await tools.later({})')
    expect(r.error).toBeNull()
    expect(r.value).toBe('here')
    expect(rt.sdk.declarations()).toContain('later(')
  })
})

describe('type-check: untyped results', () => {
  it('does not block a program that reads fields of a result without a declared type, but notes it', async () => {
    const rt = await testRuntime({ tools: basicTools, typecheck: 'error' })
    const r = await rt.runCode('const note = await tools.read_note({ key: "k" })\nreturn note.text')
    expect(r.error).toBeNull()
    expect(r.value).toBe('note k')
    expect(r.observation).toMatch(
      /Type-check notes \(the program ran; nothing here stopped it\):\n- line 2: the result of tools\.read_note has no declared type/,
    )
  })
})

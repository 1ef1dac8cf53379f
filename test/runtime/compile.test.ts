import { describe, expect, it } from 'vitest'
import { compile, locateInSource } from '../../runtime/compile.js'

async function evaluate(source: string): Promise<unknown> {
  const out = await compile(source)
  if (!out.ok) throw new Error(out.error.message)
  // The compiled program is a function expression; here it runs in the test process for a pure-syntax check.
  const fn = (0, eval)(out.program.js) as (tools: unknown, E: unknown, c: unknown) => Promise<unknown>
  return fn({}, Error, console)
}

describe('compile: a program is the body of an async function in full TypeScript', () => {
  it('supports top-level await and return', async () => {
    expect(await evaluate('const x: number = await Promise.resolve(20)\nreturn x + 1')).toBe(21)
  })

  it('supports enums, namespaces, generics, classes with parameter properties and satisfies', async () => {
    const src = [
      'enum Color { Red, Green }',
      'namespace Geo { export const origin = { x: 0, y: 0 } }',
      'class Box<T> { constructor(private readonly v: T) {} get(): T { return this.v } }',
      'const cfg = { n: 2 } satisfies { n: number }',
      'return [Color.Green, Geo.origin.x, new Box("b").get(), cfg.n]',
    ].join('\n')
    expect(await evaluate(src)).toEqual([1, 0, 'b', 2])
  })

  it('runs in strict mode', async () => {
    expect(await evaluate('return (function () { return this })()')).toBeUndefined()
  })

  it('reports a syntax error with its line in the user source and the offending line', async () => {
    const out = await compile('const a = 1\nconst b = (\nreturn a')
    expect(out.ok).toBe(false)
    if (out.ok) return
    expect(out.error.kind).toBe('compile')
    expect(out.error.line).toBe(3)
    expect(out.error.message).toContain('3 | return a')
  })

  it('maps a runtime position back to the user line', async () => {
    const out = await compile('const a = 1\n\nconst n: any = null\nreturn n.foo')
    expect(out.ok).toBe(true)
    if (!out.ok) return
    const fn = (0, eval)(out.program.js) as () => Promise<unknown>
    const stack = await fn().then(
      () => '',
      (e: Error) => e.stack ?? '',
    )
    // eval frames are named "<anonymous>"; a sandbox names the script program.js.
    const line = /<anonymous>:(\d+):(\d+)/.exec(stack)
    expect(line).not.toBeNull()
    expect(locateInSource(out.program, `at program.js:${line![1]}:${line![2]}`)?.line).toBe(4)
  })
})

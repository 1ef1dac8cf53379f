/**
 * A reused checker answers as a fresh one. The resident checker (program/resident-checker.ts) keeps one TypeScript
 * checker across checks, retires it after a number of checks and renews it while the thread is idle, primed
 * with the last program: none of that may make an answer depend on what was checked before, or on an SDK the
 * registry no longer has.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { renderDeclarations } from '../../sdk/declarations.js'
import { createTypeChecker, type TypeDiagnostic } from '../../program/typecheck.js'
import type { ToolDefinition } from '../../vocabulary/types.js'
import type { ProgramCase } from '../programs/case.js'
import { corpusTools } from '../programs/tools.js'

const dir = fileURLToPath(new URL('../programs/cases', import.meta.url))
const corpus: ProgramCase[] = []
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort())
  corpus.push(...((await import(`../programs/cases/${file}`)) as { cases: ProgramCase[] }).cases)

const idle = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A small deterministic generator, so a failing order can be replayed. */
function random(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  }
}

describe('typecheck: a reused checker answers as a fresh one', () => {
  const declarations = renderDeclarations(corpusTools() as ToolDefinition[])

  it('over the program corpus, in shuffled orders, across retirements and idle renewals', async () => {
    // A Program per check has a new TypeScript checker each time: nothing carries over from one check to the next.
    const fresh = createTypeChecker({ resident: false })
    fresh.setDeclarations(declarations)
    const expected = corpus.map((c) => fresh.check(c.code))
    // The sequence is varied: programs that block, programs with notes only, clean programs.
    expect(expected.some((ds) => ds.some((d) => d.severity === 'error'))).toBe(true)
    expect(expected.some((ds) => ds.length > 0 && ds.every((d) => d.severity === 'note'))).toBe(true)
    expect(expected.some((ds) => ds.length === 0)).toBe(true)

    const reused = createTypeChecker()
    reused.setDeclarations(declarations)
    const next = random(17)
    for (let pass = 0; pass < 3; pass++) {
      const order = corpus.map((_, i) => i).sort(() => next() - 0.5)
      for (const [position, i] of order.entries()) {
        const c = corpus[i]!
        expect(reused.check(c.code), `${c.name} (pass ${pass}, position ${position})`).toEqual(expected[i])
        if (next() < 0.3) await idle() // a renewal, when one is due, runs here
      }
    }
  }, 120_000)

  it('follows changed declarations even when a renewal was due (it is dropped, not applied)', async () => {
    const typed: ToolDefinition = {
      name: 'get',
      description: 'A record.',
      parameters: { type: 'object', properties: {} },
      output: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false },
      execute: () => null,
    }
    const changed: ToolDefinition = {
      ...typed,
      output: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: false },
    }
    const program = 'const r = await tools.get({})\nreturn r.a.toFixed(1)'
    const blocking = (ds: TypeDiagnostic[]) => ds.filter((d) => d.severity === 'error').map((d) => d.line)
    const checker = createTypeChecker()
    // Each SDK for a few checks either side of the checker's retirement (40), so the switch lands just before,
    // at and just after the check that makes a renewal due, and the renewal would run after the switch.
    let n = 0
    for (let phase = 0; phase < 6; phase++) {
      const sdk = phase % 2 === 0 ? typed : changed
      checker.setDeclarations(renderDeclarations([sdk]))
      const want = sdk === changed ? [2] : []
      for (let i = 0; i < 37 + phase; i++) {
        expect(blocking(checker.check(`${program}\n// ${n++}`)), `phase ${phase}, check ${i}`).toEqual(want)
        if (i % 4 === 3) await idle()
      }
    }
  }, 120_000)

  it('in a runtime: a tool re-registered with another output type changes the verdict, after many runs', async () => {
    const first: ToolDefinition = {
      name: 'get',
      description: 'A record.',
      parameters: { type: 'object', properties: {} },
      output: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false },
      execute: () => ({ a: 1 }),
    }
    const rt = await createRuntime({ tools: [first], typecheck: 'error' })
    try {
      const program = (i: number) => `const r = await tools.get({})\nreturn r.a.toFixed(${i % 3})`
      // Past the checker's retirement in its thread, so a renewal is due or done when the registry changes.
      for (let i = 0; i < 45; i++) expect((await rt.runCode(program(i))).error).toBeNull()
      rt.tools.unregister(['get'])
      const output = { type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: false }
      rt.tools.register([{ ...first, output }])
      const r = await rt.runCode(program(0))
      expect(r.error?.kind, r.observation).toBe('type')
      expect(r.calls).toEqual([])
      rt.tools.unregister(['get'])
      rt.tools.register([first])
      expect((await rt.runCode(program(1))).error).toBeNull()
    } finally {
      await rt.close()
    }
  }, 120_000)
})

/**
 * oxc's gate on Babel's tree (sdk/lite/fast-gate.ts), the check-off path's: it lets through no more than the
 * gate on TypeScript's tree (sdk/program-fast-ts.ts) over the repo's corpus and generated variants, keeps
 * every exclusion, and its depth walk cannot overflow the stack, however deep the tree.
 */
import type { File } from '@babel/types'
import { beforeAll, describe, expect, it } from 'vitest'
import { fastCompileLite, plainLite } from '../../sdk/lite/fast-gate.js'
import { normaliseLite } from '../../sdk/lite/normalise.js'
import { parseWrappedShapeLite } from '../../sdk/lite/shape.js'
import { fastCompile } from '../../sdk/program-fast-ts.js'
import { loadFastCompiler } from '../../sdk/program-fast.js'
import { parseWrappedShape } from '../../sdk/program-shape.js'
import { wrapProgram } from '../../sdk/program-wrap.js'
import { corpusPrograms, generatedPrograms } from './lite-corpus.js'

const gates = (body: string) => {
  const wrapped = wrapProgram(body).text
  const lite = parseWrappedShapeLite(wrapped, 'ts').parsed
  const ts = parseWrappedShape(wrapped, 'ts').file
  return {
    lite: lite !== undefined && fastCompileLite(wrapped, lite) !== undefined,
    ts: ts !== undefined && fastCompile(wrapped, ts) !== undefined,
  }
}

beforeAll(() => loadFastCompiler())

describe("oxc's gate on Babel's tree", () => {
  // Babel reports some recoverable errors TypeScript's parser leaves to its checker (`{ a }?:`): those go to esbuild.
  it('lets through no program the TypeScript gate keeps from oxc, and most that it lets through', () => {
    let both = 0
    let tsOnly = 0
    // Normalised first, as a run's text is (a body's imports and exports are rewritten by then).
    for (const source of [...corpusPrograms(), ...generatedPrograms()]) {
      const normalised = normaliseLite(source)
      if (normalised.problem) continue
      const body = normalised.text
      const g = gates(body)
      if (g.lite) expect(g.ts, body).toBe(true)
      if (g.lite && g.ts) both++
      else if (g.ts) tsOnly++
    }
    expect(both).toBeGreaterThan(100)
    expect(tsOnly).toBeLessThan(both / 10)
  }, 120_000)

  it('keeps decorators, namespaces, accessor, imports/exports, using, syntax errors and deep trees from oxc', () => {
    const cases = [
      'function d(v: unknown, _c: unknown) { return v }\nclass A { @d m() { return 1 } }\nreturn new A().m()',
      'namespace N { export const x = 3 }\nreturn N.x',
      'declare module "m" { export const x: number }\nreturn 1',
      'class A { accessor n = 1 }\nreturn new A().n',
      'using r = { [Symbol.dispose]() {} }\nreturn 1',
      'await using r = { async [Symbol.asyncDispose]() {} }\nreturn 1',
      "import x = require('x')\nreturn x",
      'export const y = 1\nreturn y',
      'const x = (\nreturn 1',
      'function f(a, a) { return a }\nreturn f(1, 2)', // a recovered error (TypeScript's checker reports it)
      'return 010',
      `return ${'['.repeat(250)}1${']'.repeat(250)}`,
    ]
    for (const body of cases) expect(gates(body).lite, body).toBe(false)
    expect(gates(`return ${'['.repeat(60)}1${']'.repeat(60)}`).lite).toBe(true)
  })

  it('walks a tree of any depth without recursing (a million nodes deep answers false)', () => {
    let node: Record<string, unknown> = { type: 'NumericLiteral', value: 1 }
    for (let i = 0; i < 1_000_000; i++) node = { type: 'ArrayExpression', elements: [node] }
    const file = { type: 'File', errors: [], program: { type: 'Program', body: [{ type: 'ExpressionStatement', expression: node }] } }
    expect(plainLite({ file: file as unknown as File, syntaxError: false })).toBe(false)
  })
})

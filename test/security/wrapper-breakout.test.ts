// Issue 12.1: no program text can end the wrapper early. A body that closes the wrapper's function would
// run top-level code when the sandbox evaluates the script — before the prelude has locked the realm down
// (WebAssembly removed) and captured its intrinsics. Attacked three ways: hand-written breakouts (braces,
// comments, templates, regexes, line separators, HTML-like comments), a seeded fuzz of the boundary, and
// end to end on the isolate (type check on and off) and in a container.
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../runtime/compile.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { checkWrappedShape, normaliseProgram, wrapProgram } from '../../sdk/program-text.js'
import { ts } from '../../sdk/ts-host.js'
import { dockerEngine } from '../docker/engine.js'
import { testRuntime } from '../support/runtime.js'

const RAN = 'globalThis.__ran = (globalThis.__ran || 0) + 1'

/** Bodies that try to close the function and run `RAN` at the script's top level. */
const BREAKOUTS = [
  `}); ${RAN}; (async function () {`,
  `})\n${RAN}\n;(async function () {`,
  `}) ; ${RAN} ; (function () {\n`,
  `/}/; }); ${RAN}; (async function () { /{/`,
  `const r = /[/}]/ }); ${RAN}; (async function () { /`,
  `// \u2028 }); ${RAN}; (async function () {`,
  `// \u2029 }); ${RAN}; (async function () {`,
  `/* */ }); ${RAN}; (async function () { /* */`,
  `*/ }); ${RAN}; (async function () { /*`,
  `\`\${'}'}\`; }); ${RAN}; (async function () {`,
  `\`); ${RAN}; (\``,
  `'\\\n}); ${RAN}; (async function () {'`,
  `<!-- }); ${RAN}; (async function () {`,
  `--> }); ${RAN}; (async function () {`,
  `x\n--> }); ${RAN}; (async function () {`,
  `</script>}); ${RAN}; (async function () {<script>`,
  `}`,
  `}}); ${RAN}; (async function () {{`,
  `return 1 }); ${RAN}; (async function () { return 2`,
  `}, ${RAN}, function () {`,
  `})(); ${RAN}; (async function () {`,
  `}); ${RAN}; export default (async function () {`,
  `#!/bin/sh\n}); ${RAN}; (async function () {`,
  `} // \r }); ${RAN}; (async function () {`,
  `\u0000}); ${RAN}; (async function () {`,
  `namespace A {} }); ${RAN}; (async function () { namespace B {}`,
  `"use strict" }); ${RAN}; (async function () {`,
  `class A { static { }); ${RAN}; (async function () { } }`,
  `}); ${RAN}; (async function () {\n\`\`\`ts\n`,
  '```ts\n}); ' + RAN + '; (async function () {\n```',
]

/** Evaluates compiled JS as a sandbox does (a script in a fresh realm): it must only create a function. */
function evaluateInert(js: string): { ran: number; type: string } {
  const context = vm.createContext({})
  const value: unknown = vm.runInContext(js, context, { filename: 'program.js', timeout: 1000 })
  return { ran: Number(vm.runInContext('globalThis.__ran || 0', context)), type: typeof value }
}

async function assertNoBreakout(body: string): Promise<'refused' | 'inert'> {
  const text = normaliseProgram(body).text
  const out = await compile(text)
  if (!out.ok) return 'refused'
  // Whatever esbuild made of it, the script is one function expression and evaluating it runs nothing.
  expect(checkWrappedShape(out.program.js, 'js').ok, body).toBe(true)
  const ev = evaluateInert(out.program.js)
  expect(ev, JSON.stringify(body)).toEqual({ ran: 0, type: 'function' })
  return 'inert'
}

describe('the program wrapper cannot be ended early', () => {
  it('refuses every hand-written breakout, or compiles it to a function that runs nothing at load', async () => {
    const outcomes: Record<string, string> = {}
    for (const body of BREAKOUTS) outcomes[body] = await assertNoBreakout(body)
    // The plain ones must be refused outright, with the line named.
    const plain = await compile(`const a = 1\n}); ${RAN}; (async function () {`)
    expect(plain.ok).toBe(false)
    if (!plain.ok) {
      expect(plain.error.line).toBe(2)
      expect(plain.error.message).toMatch(/closes the program itself/)
    }
  })

  it('wraps into exactly one function whose body is the program (parsed with TypeScript)', () => {
    for (const body of ['return 1', 'const x = await tools.a({})\nreturn x', '// last line comment', '/* open comment at end */']) {
      const w = wrapProgram(body)
      const file = ts.createSourceFile('w.ts', w.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
      expect(file.statements).toHaveLength(1)
      expect(w.text.slice(w.bodyStart, w.bodyEnd)).toBe(body)
      expect(checkWrappedShape(w.text).ok).toBe(true)
    }
  })

  it('survives a seeded fuzz of the boundary', async () => {
    const pieces = [
      '}',
      ')',
      '{',
      '(',
      ';',
      '*/',
      '/*',
      '//',
      '`',
      '${',
      "'",
      '"',
      '/',
      '/}/',
      '\\',
      '\n',
      '\u2028',
      '\u2029',
      '\r',
      '<!--',
      '-->',
      '</script>',
      'async function () {',
      'function',
      '=>',
      ',',
      RAN,
      `}); ${RAN}; (async function () {`,
      'return',
      'await',
      '#',
    ]
    let seed = 12345
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n
    const counts = { refused: 0, inert: 0 }
    for (let i = 0; i < 400; i++) {
      let body = ''
      const n = 1 + rand(8)
      for (let k = 0; k < n; k++) body += pieces[rand(pieces.length)]! + (rand(3) === 0 ? ' ' : '')
      counts[await assertNoBreakout(body)]++
    }
    // Both kinds occur: the fuzz reaches texts that compile (and are inert) as well as refused ones.
    expect(counts.refused).toBeGreaterThan(0)
    expect(counts.inert).toBeGreaterThan(0)
  }, 120_000)
})

const PAYLOAD = `}); globalThis.__mem = new WebAssembly.Memory({ initial: 16384 }); (async function () {`

describe('end to end: nothing of a breakout runs before the sandbox is locked down', () => {
  for (const typecheck of ['off', 'error'] as const) {
    it(`isolate, --typecheck=${typecheck}: refused before any call, and WebAssembly is gone anyway`, async () => {
      let called = 0
      const rt = await testRuntime({
        typecheck,
        limits: { memoryMb: 16 },
        tools: [{ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ++called }],
      })
      for (const body of [PAYLOAD, `/}/; ${PAYLOAD} /{/`, `await tools.probe({})\n${PAYLOAD}`]) {
        const r = await rt.runCode(body)
        // The shape is proved at compile time, which comes before the type check: refused either way.
        expect(r.error?.kind, r.observation).toBe('compile')
      }
      expect(called).toBe(0)
      const r = await rt.runCode('const g = globalThis as any\nreturn [typeof g.WebAssembly, typeof g.__mem]')
      expect(r.value).toEqual(['undefined', 'undefined'])
    })
  }
})

describe.skipIf(!dockerEngine.available)('end to end in a container', () => {
  let rt: Runtime
  beforeAll(async () => {
    rt = await createRuntime({ sandbox: 'docker', typecheck: 'off', tools: [], docker: { poolSize: 1 } })
    await rt.sandbox.start()
  }, 120_000)
  afterAll(async () => {
    await rt?.close()
  })
  it('refuses the breakout and has no WebAssembly', async () => {
    const r = await rt.runCode(PAYLOAD)
    expect(r.error?.kind).toBe('compile')
    const ok = await rt.runCode('return typeof WebAssembly')
    expect(ok.value).toBe('undefined')
  }, 60_000)
})

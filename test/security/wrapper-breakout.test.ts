// Issue 12.1: no program text can end the wrapper early. A body that closes the wrapper's function would
// run top-level code when the sandbox evaluates the script — before the prelude has locked the realm down
// (WebAssembly removed) and captured its intrinsics. Attacked three ways: hand-written breakouts (braces,
// comments, templates, regexes, line separators, HTML-like comments), a seeded fuzz of the boundary, and
// end to end on the isolate (type check on and off) and in a container.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../runtime/compile.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { checkWrappedShape, normaliseProgram, wrapProgram } from '../../program/normalise.js'
import { ts } from '../../program/ts-host.js'
import { dockerEngine } from '../docker/engine.js'
import { testRuntime } from '../support/runtime.js'
import { BOUNDARY_PIECES, BREAKOUTS, evaluateInert, RAN } from './breakouts.js'

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
    const pieces = BOUNDARY_PIECES
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

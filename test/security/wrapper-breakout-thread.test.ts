// The wrapper breakouts again, through the way a runtime compiles: in the checker's thread, in the request
// that normalises the program (oxc in the thread for plain programs, esbuild from the thread otherwise).
// Every breakout is refused or compiles to a function that runs nothing at load; oxc's output is attacked
// on its own (valid programs with every lexical trap the boundary has), and it must behave as esbuild's.
// Twice: with the check off (sdk/lite/: Babel proves the source and gates oxc, acorn proves the output; no
// TypeScript in the thread) and with it on (TypeScript's parse proves the source and gates oxc).
import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import { compile, compiledProgram } from '../../runtime/compile.js'
import { createProgramPrep } from '../../runtime/typecheck.js'
import { checkWrappedShape } from '../../program/normalise.js'
import { BOUNDARY_PIECES, BREAKOUTS, evaluateInert, RAN } from './breakouts.js'

type Prep = ReturnType<typeof createProgramPrep>
const PREPS: [string, Prep][] = [
  ['check off: Babel gates oxc', createProgramPrep()],
  ['check on: TypeScript gates oxc', createProgramPrep({}, () => 'declare const tools: {}')],
]

/** Compiled as runCode compiles: the thread's one request. */
async function threadCompile(prep: Prep, body: string) {
  const prepared = await prep.prepare(body, false)
  const text = prepared.normalised?.text
  if (prepared.unprepared || prepared.normalised?.problem || text === undefined) return undefined
  expect(prepared.compiled, body).toBeDefined()
  const out = compiledProgram(prepared.compiled!, text)
  return out.ok ? { js: out.program.js, by: prepared.compiled?.ok ? prepared.compiled.by : undefined } : undefined
}

async function assertNoBreakout(prep: Prep, body: string): Promise<'refused' | 'oxc' | 'esbuild'> {
  const out = await threadCompile(prep, body)
  if (out === undefined) return 'refused'
  expect(checkWrappedShape(out.js, 'js').ok, body).toBe(true)
  expect(evaluateInert(out.js), JSON.stringify(body)).toEqual({ ran: 0, type: 'function' })
  return out.by ?? 'esbuild'
}

/** Valid programs full of the boundary's lexical traps: each compiles, and oxc's JS answers what esbuild's does. */
const TRAPS = [
  "const s = '}); globalThis.__ran = 1; (async function () {'\nreturn s.length",
  'const s = "\\u007d); x(); (function () {"\nreturn s',
  'const t = `${"}"}); ${`${"`"}`}`\nreturn t',
  'const r = /[/}]+/g\nreturn "a}}b".replace(r, "")',
  'const r = /\\/}/\nreturn r.test("/}")',
  '// }); globalThis.__ran = 1; (async function () {\nreturn 1',
  '/* }); globalThis.__ran = 1; (async function () { */\nreturn 2',
  "const s = 'a\u2028b\u2029c'\nreturn s.length",
  '// a line separator \u2028 return 5\nreturn 3',
  'const s = "</script><script>x()</script>"\nreturn s.length',
  'const \\u0061b = 4\nreturn ab',
  'const o = <any>{ a: 1 }\nreturn o.a',
  'const f = <T,>(x: T): T => x\nreturn f<number>(7)',
  'class A { #x = 1; static y = 2; static { A.y = 3 } get x() { return this.#x } }\nreturn new A().x + A.y',
  'class P { constructor(private readonly n: number, public m = 2) {} sum() { return this.n + this.m } }\nreturn new P(1).sum()',
  'class F { a!: number; declare b: string; c?: number }\nreturn Object.keys(new F()).join(",")',
  'enum E { A = 1, B = A * 2, C = "c" }\nconst enum K { X = 5 }\nreturn [E.B, E[1], E.C, K.X].join()',
  'abstract class S { abstract f(): number; g() { return this.f() } }\nclass T extends S { f() { return 9 } }\nreturn new T().g()',
  'function over(a: string): string\nfunction over(a: number): number\nfunction over(a: any) { return a }\nreturn over(3)',
  'const v = { a: 1 } satisfies Record<string, number>\nconst w = v as unknown as { a: number }\nreturn w.a!',
  'type T = { a: number }\ninterface I { b: string }\ndeclare const nothing: T\nreturn typeof nothing === "undefined" ? "declared" : "defined"',
  'label: for (const x of [1, 2]) { for (const y of [3]) { if (x === 2) break label; } }\nreturn "labels"',
  'const a = [1, , 3]\nconst { length, ...rest } = a\nreturn [length, Object.keys(rest).length, a?.[0] ?? 0, 2 ** 3]',
  'let x = 1; x ||= 2; x &&= 3; x ??= 4\nreturn x',
  'async function* g() { yield 1; yield 2 }\nconst out: number[] = []\nfor await (const v of g()) out.push(v)\nreturn out',
  'return 1 < 2 > false',
  "'use strict'\nreturn (function () { return typeof this })()",
  'return String.raw`\\u{7d}); evil(); (`',
]

/** Calls a compiled program's function in a fresh realm (no tools), its awaited answer. */
async function answerOf(js: string): Promise<unknown> {
  const context = vm.createContext({})
  const fn = vm.runInContext(js, context, { filename: 'program.js', timeout: 1000 }) as () => Promise<unknown>
  return JSON.stringify(await fn())
}

describe.each(PREPS)('the program wrapper cannot be ended early, compiled in the checker thread (%s)', (_gate, prep) => {
  it('refuses every hand-written breakout, or compiles it to a function that runs nothing at load', async () => {
    for (const body of BREAKOUTS) await assertNoBreakout(prep, body)
    const plain = await prep.prepare(`const a = 1\n}); ${RAN}; (async function () {`, false)
    const out = compiledProgram(plain.compiled!, plain.normalised!.text)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ line: 2, message: expect.stringMatching(/closes the program itself/) })
  })

  it('survives a seeded fuzz of the boundary, through both compilers', async () => {
    let seed = 54321
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n
    const counts = { refused: 0, oxc: 0, esbuild: 0 }
    for (let i = 0; i < 400; i++) {
      let body = ''
      const n = 1 + rand(8)
      for (let k = 0; k < n; k++) body += BOUNDARY_PIECES[rand(BOUNDARY_PIECES.length)]! + (rand(3) === 0 ? ' ' : '')
      counts[await assertNoBreakout(prep, body)]++
    }
    expect(counts.refused).toBeGreaterThan(0)
    expect(counts.oxc).toBeGreaterThan(0)
  }, 120_000)

  it('compiles valid programs full of lexical traps with oxc, to JS that answers what esbuild’s does', async () => {
    for (const body of TRAPS) {
      const fast = await threadCompile(prep, body)
      expect(fast?.by, body).toBe('oxc')
      expect(evaluateInert(fast!.js), body).toEqual({ ran: 0, type: 'function' })
      const slow = await compile(body)
      expect(slow.ok, body).toBe(true)
      if (slow.ok) expect(await answerOf(fast!.js), body).toEqual(await answerOf(slow.program.js))
    }
  })

  it('leaves HTML-like comments, decorators, `using`, namespaces and syntax errors to esbuild', async () => {
    const cases = [
      'const x = 1 <!-- y\nreturn x',
      'const x = 3\n--> comment after a line break\nreturn x',
      'function d(v: unknown, _c: unknown) { return v }\nclass A { @d m() { return 1 } }\nreturn new A().m()',
      'class A { accessor n = 1 }\nreturn new A().n',
      'using r = { [Symbol.dispose]() {} }\nreturn 1',
      'namespace N { export const x = 3 }\nreturn N.x',
      'const x = (\nreturn 1',
      'let x = 1\nreturn x-->0',
    ]
    for (const body of cases) {
      const prepared = await prep.prepare(body, false)
      expect(prepared.compiled, body).toBeDefined()
      if (prepared.compiled?.ok) expect(prepared.compiled.by, body).toBe('esbuild')
    }
  })
})

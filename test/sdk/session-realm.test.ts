/**
 * Session cells end to end in ONE real isolated-vm context (issue 15), before the runtime's sessions: each
 * turn is prepared in the checker's thread (normalised, rewritten, shape-proved, checked against the
 * session's declarations), compiled by esbuild, and run in the same context as the turns before it. What a
 * turn declared is there in the next, live: Maps keep growing, class instances keep their class, a helper
 * redefined is the one earlier helpers call.
 */
import ivm from 'isolated-vm'
import { afterEach, describe, expect, it } from 'vitest'
import { compile } from '../../runtime/compile.js'
import { createTypecheck, type RuntimeTypecheck } from '../../runtime/typecheck.js'
import { renderDeclarations } from '../../sdk/declarations.js'
import { conversations, REALM_TOOLS, sessionTools } from './session-cells.js'

const typecheck = createTypecheck('error', () => renderDeclarations(sessionTools)) as RuntimeTypecheck

/** A realm like the sandbox's: `tools` and `console` are read-only globals, the program strict. */
function realm(): { context: ivm.Context; isolate: ivm.Isolate; logs: string[] } {
  const isolate = new ivm.Isolate({ memoryLimit: 64 })
  const context = isolate.createContextSync()
  const logs: string[] = []
  context.global.setSync('__log', new ivm.Callback((text: string) => void logs.push(text)))
  context.evalSync(`'use strict';
    Object.defineProperty(globalThis, 'tools', { value: Object.freeze(${REALM_TOOLS}), writable: false, configurable: false });
    const log = __log;
    delete globalThis.__log;
    Object.defineProperty(globalThis, 'console', { value: Object.freeze({ log: (...a) => log(a.join(' ')) }), writable: false, configurable: false });`)
  return { context, isolate, logs }
}

interface Session {
  context: ivm.Context
  declarations: string
}

/** One turn, as the runtime will run it; answers the cell's value (or throws with what stopped it). */
async function run(session: Session, code: string): Promise<unknown> {
  const prepared = await typecheck.prepare(code, false, { declarations: session.declarations })
  const text = prepared.normalised?.text
  if (text === undefined || prepared.normalised?.problem)
    throw new Error(`not prepared: ${prepared.unprepared ?? prepared.normalised?.problem?.message}`)
  if (prepared.outcome && prepared.outcome.count > 0) throw new Error(`blocked: ${prepared.outcome.report}`)
  const compiled = await compile(text, { shapes: typecheck.shapes, ...(prepared.shape ? { sourceShape: prepared.shape } : {}) })
  if (!compiled.ok) throw new Error(`compile: ${compiled.error.message}`)
  session.declarations = prepared.session?.declarations ?? session.declarations
  const json = (await session.context.eval(`(${compiled.program.js})().then((v) => JSON.stringify(v === undefined ? null : v))`, {
    promise: true,
  })) as string
  return JSON.parse(json)
}

const isolates: ivm.Isolate[] = []
afterEach(() => {
  for (const i of isolates.splice(0)) if (!i.isDisposed) i.dispose()
})

function session(): Session & { logs: string[] } {
  const r = realm()
  isolates.push(r.isolate)
  return { context: r.context, declarations: '', logs: r.logs }
}

describe('session cells in one isolated-vm context', () => {
  for (const conversation of conversations) {
    it(conversation.name, async () => {
      const s = session()
      for (const [i, turn] of conversation.turns.entries()) {
        const value = await run(s, turn.code)
        if (turn.value !== undefined) expect(value, `turn ${i + 1}`).toEqual(turn.value)
        for (const line of turn.declares ?? []) expect(s.declarations.split('\n'), `turn ${i + 1}`).toContain(line)
      }
    })
  }

  it('every declaration kind is a binding of the next turn, and a function is callable above its line', async () => {
    const s = session()
    await run(
      s,
      [
        'const early = later(2)',
        'let { a, b: [c = 3, ...d], ...rest } = { a: 1, b: [undefined, 4, 5], x: 6, y: 7 }',
        'var v = 8, w',
        'let u: number | undefined',
        'function later(n: number) { return n * 10 }',
        'async function fetchTwice() { return [await tools.query_sales({ quarter: "Q1" }), 2].length }',
        'function* count(n: number) { for (let i = 0; i < n; i++) yield i }',
        'abstract class Shape { abstract area(): number; describe() { return `${this.constructor.name}: ${this.area()}` } }',
        'class Square extends Shape { constructor(public side: number) { super() } area() { return this.side ** 2 } }',
        'class Counter { static made = 0; static { Counter.made++ } constructor() { Counter.made++ } }',
        'enum Color { Red, Green = 5, Blue }',
        'const enum Size { S = "s", L = "l" }',
      ].join('\n'),
    )
    const value = await run(
      s,
      'return { early, a, c, d, rest, v, w, u, later: later(1), twice: await fetchTwice(), counted: [...count(3)], sq: new Square(3).describe(), color: Color.Blue, name: Color[5], size: Size.L, fnName: later.name, classes: [Square.name, Counter.name, new Counter() && Counter.made] }',
    )
    expect(value).toEqual({
      early: 20,
      a: 1,
      c: 3,
      d: [4, 5],
      rest: { x: 6, y: 7 },
      v: 8,
      later: 10,
      twice: 2,
      counted: [0, 1, 2],
      sq: 'Square: 9',
      color: 6,
      name: 'Green',
      size: 'l',
      fnName: 'later',
      classes: ['Square', 'Counter', 2],
    })
  })

  it('a redeclaration replaces the binding, with another type, and closures of earlier turns see it', async () => {
    const s = session()
    await run(s, 'const data = [1, 2, 3]\nconst sum = () => data.reduce((x, y) => x + y, 0)\nlet label = "n"')
    expect(await run(s, 'sum()')).toBe(6)
    await run(s, 'const data = [10, 20]\nlet label = 7')
    expect(await run(s, 'sum()')).toBe(30)
    await run(s, 'const data = "text"')
    expect(await run(s, 'data.toUpperCase() + label')).toBe('TEXT7')
    expect(s.declarations).toContain('declare const data: "text"')
    expect(s.declarations).toContain('declare let label: number')
    expect(s.declarations).not.toContain('declare const data: number[]')
  })

  it('a turn that throws keeps what it assigned before the throw', async () => {
    const s = session()
    await expect(run(s, 'const before = 1\nthrow new Error("boom")\nconst after = 2')).rejects.toThrow('boom')
    expect(await run(s, 'return [before, typeof after]')).toEqual([1, 'undefined'])
  })

  it("names the sandbox owns stay the run's own: the next run has the real ones", async () => {
    const s = session()
    expect(
      await run(s, 'const console = { log: () => 1 }\nconst URL = "https://x.example"\nconst mine = 1\nreturn console.log() + URL'),
    ).toBe('1https://x.example')
    expect(await run(s, "return [typeof URL === 'string', mine]")).toEqual([false, 1])
    expect(s.declarations).not.toMatch(/\b(console|URL)\b/)
  })

  it('inner scopes are untouched: a block or loop variable of a cell is not a binding of the next', async () => {
    const s = session()
    await run(
      s,
      'let total = 0\nfor (let i = 0; i < 3; i++) { const sq = i * i; total += sq }\nif (total) { var hidden = 1; let inner = 2 }',
    )
    const names = ['sq', 'inner', 'i', 'hidden']
    expect(await run(s, `return [total, ...${JSON.stringify(names)}.map((n) => n in globalThis)]`)).toEqual([5, false, false, false, false])
    // And the next turn's check knows it: using one is a name that does not exist.
    await expect(run(s, 'return sq')).rejects.toThrow(/1:8 Cannot find name 'sq'/)
  })

  it("a run's stack lines are the user's own lines, through the rewrite (a hoisted function's body, a declaration line)", async () => {
    const s = session()
    const code = [
      'const items = [1, 2]',
      '',
      'const total = sum(items)',
      'function sum(xs: number[]) {',
      "  if (xs.length) throw new Error('no')",
      '  return 0',
      '}',
    ]
    const prepared = await typecheck.prepare(code.join('\n'), false, { declarations: '' })
    const compiled = await compile(prepared.normalised!.text, { shapes: typecheck.shapes })
    if (!compiled.ok) throw new Error(compiled.error.message)
    const stack = (await s.context.eval(`(${compiled.program.js})().then(() => 'no error', (e) => e.stack)`, {
      promise: true,
      filename: 'program.js',
    })) as string
    const frames = [...stack.matchAll(/program\.js:(\d+):(\d+)/g)].map(
      (m) => compiled.program.mapPosition(Number(m[1]), Number(m[2]) - 1)?.line,
    )
    expect(frames.slice(0, 2)).toEqual([5, 3])
  })
})

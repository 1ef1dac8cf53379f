/**
 * Typed across turns (issue 15), with the real TypeScript compiler: a cell is checked against what the
 * session's earlier cells declared — `data.rows` in turn 3 against what turn 1 assigned — under the same
 * blocking rule as any program, with the user's own line numbers; a type that cannot be written down is
 * `any`, never a false block.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { renderDeclarations } from '../../sdk/declarations.js'
import { createTypeChecker, type TypeChecker, type TypeDiagnostic } from '../../program/typecheck.js'
import { normaliseProgram } from '../../program/normalise.js'
import { createProgramPrep, createTypecheck } from '../../runtime/typecheck.js'
import { nodeAmbientFiles } from '../../program/node-types.js'
import { conversations, sessionTools } from './session-cells.js'

describe.each([
  ['resident checker', true],
  ['program per check', false],
])('session types (%s)', (_mode, resident) => {
  let checker: TypeChecker
  beforeAll(() => {
    checker = createTypeChecker({ resident })
    checker.setDeclarations(renderDeclarations(sessionTools))
  })

  /** Runs the cells as turns of one session; answers each turn's diagnostics and the declarations after it. */
  function turns(...cells: string[]): { diagnostics: TypeDiagnostic[]; declarations: string }[] {
    let declarations = ''
    return cells.map((cell) => {
      const checked = checker.checkSession(normaliseProgram(cell).text, declarations)
      declarations = checked.declarations ?? declarations
      return { diagnostics: checked.diagnostics, declarations }
    })
  }
  const errors = (ds: TypeDiagnostic[]) => ds.filter((d) => d.severity === 'error')

  it('the realistic conversations check clean, turn after turn', () => {
    for (const c of conversations) {
      const results = turns(...c.turns.map((t) => t.code))
      for (const [i, r] of results.entries()) expect(errors(r.diagnostics), `${c.name}, turn ${i + 1}`).toEqual([])
    }
  })

  it("turn 3's `data.rows` is checked against what turn 1 assigned: a misspelt method blocks, on the user's line", () => {
    const [, , third] = turns(
      "const data = await tools.query_sales({ quarter: 'Q3' })",
      'const top = data.rows.slice(0, 2)',
      ['// the amounts, formatted', 'const amounts = data.rows.map((r) => r.amount.toFixedd(2))', 'top.length'].join('\n'),
    )
    const blocking = errors(third!.diagnostics)
    expect(blocking).toHaveLength(1)
    expect(blocking[0]).toMatchObject({ line: 2, lineText: 'const amounts = data.rows.map((r) => r.amount.toFixedd(2))' })
    expect(blocking[0]!.message).toMatch(/toFixedd.*does not exist on type 'number'/)
  })

  it('a tool argument built from an earlier binding is checked against the tool: a series of the wrong shape blocks', () => {
    const [, second] = turns(
      "const { rows } = await tools.query_sales({ quarter: 'Q3' })",
      "const chart = await tools.render_chart({ title: 'Sales', series: rows })",
    )
    expect(errors(second!.diagnostics)).toHaveLength(1)
    expect(errors(second!.diagnostics)[0]).toMatchObject({ line: 1 })
  })

  it('a forgotten `await` in turn 1 is found when turn 2 uses the Promise as its value', () => {
    const [first, second] = turns("const pending = tools.query_sales({ quarter: 'Q1' })", '\nconst n = pending.rows.length')
    expect(errors(first!.diagnostics)).toEqual([])
    expect(errors(second!.diagnostics)[0]).toMatchObject({ line: 2 })
    expect(errors(second!.diagnostics)[0]!.message).toMatch(/Did you forget `await`/)
  })

  it('a `const` stays const: assigning it in a later turn blocks; a `let` keeps its type: a string for a number is reported', () => {
    const [, second, third] = turns('const limit = 10\nlet seen = 0', 'limit = 20', "seen += 1\nseen = 'many'")
    expect(errors(second!.diagnostics)[0]).toMatchObject({ line: 1, code: 2588 })
    expect(third!.diagnostics).toEqual([expect.objectContaining({ line: 2, code: 2322 })])
    expect(third!.declarations).toContain('declare let seen: number')
  })

  it('a redeclaration replaces the earlier type, in the checks that follow', () => {
    const [, , third, fourth] = turns(
      'const data = [1, 2, 3]',
      'data.push(4)',
      "const data = { rows: ['a'] }",
      'data.rows[0].toUpperCase()\ndata.push(5)',
    )
    expect(third!.declarations.match(/declare const data/g)).toHaveLength(1)
    expect(third!.declarations).toContain('declare const data: { rows: string[]; }')
    expect(errors(fourth!.diagnostics)).toEqual([expect.objectContaining({ line: 2, message: expect.stringMatching(/push/) })])
  })

  it('every kind is declared for the next turn: destructuring, functions, generators, classes, interfaces, types, enums', () => {
    const [first, second] = turns(
      [
        'const { a, b: [c = 1, ...rest] } = { a: "x", b: [2, 3, 4] as number[] }',
        'var v = true',
        'function add(x: number, y = 1) { return x + y }',
        'async function later(): Promise<string[]> { return [] }',
        'function* ids() { yield 1 }',
        'interface Point { x: number; y: number }',
        'type Pair = [Point, Point]',
        'class Line { constructor(public ends: Pair) {} length() { return Math.hypot(this.ends[1].x - this.ends[0].x, this.ends[1].y - this.ends[0].y) } }',
        'enum Mode { Fast, Slow }',
      ].join('\n'),
      [
        'const s: string = a.toUpperCase()',
        'const n: number = c + rest[0] + add(1)',
        'const names = await later()',
        'const first = ids().next().value',
        'const line = new Line([{ x: 0, y: 0 }, { x: 3, y: 4 }])',
        'const len: number = line.length()',
        'const m: Mode = Mode.Slow',
        'const ok: boolean = v',
      ].join('\n'),
    )
    const d = first!.declarations
    for (const line of [
      'declare const a: string',
      'declare const c: number',
      'declare const rest: number[]',
      'declare var v: boolean',
      'declare function add(x: number, y?: number): number',
      'declare function later(): Promise<string[]>',
      'interface Point { x: number; y: number }',
      'type Pair = [Point, Point]',
      'enum Mode { Fast, Slow }',
    ])
      expect(d.split('\n'), d).toContain(line)
    expect(d).toMatch(/^declare function ids\(\): Generator<number, void/m)
    expect(d).toMatch(/^class Line \{/m)
    expect(second!.diagnostics).toEqual([])
    expect(second!.declarations).toContain('declare const line: Line')
    expect(second!.declarations).toContain('declare const names: string[]')
  })

  it('a type that cannot be written down is `any`: no false block in the next turn', () => {
    const [first, second] = turns(
      [
        'function make() {',
        '  class Local { hits = 1 }',
        '  return { item: new Local(), when: Date.now() }',
        '}',
        'const made = make()',
        "const key = Symbol('k')",
      ].join('\n'),
      'const h: number = made.item.hits + made.when\nconst k = key.description',
    )
    expect(first!.declarations).toContain('declare function make(): any')
    expect(first!.declarations).toContain('declare const made: any')
    expect(errors(second!.diagnostics)).toEqual([])
  })

  it('names the sandbox owns are not carried; a cell with a syntax error leaves the declarations as they were', () => {
    const [first, second] = turns('const console = 1\nconst tools2 = 2', 'const broken = (')
    expect(first!.declarations).toBe('declare const tools2: 2')
    expect(errors(second!.diagnostics).length).toBeGreaterThan(0)
    expect(second!.declarations).toBe(first!.declarations)
  })

  it('declarations that are not TypeScript are ignored, not half-read', () => {
    const checked = checker.checkSession('const x = 1', 'declare const y: {')
    expect(checked.diagnostics).toEqual([])
    expect(checked.declarations).toBe('declare const x: 1')
  })
})

describe('session types with Node (Docker): imported names are declared by their module', () => {
  it('an import of turn 1 is typed in turn 2, by its module', () => {
    const checker = createTypeChecker({ ambientFiles: nodeAmbientFiles() })
    checker.setDeclarations(renderDeclarations(sessionTools))
    const cell = (code: string, declarations: string) =>
      checker.checkSession(normaliseProgram(code, { allowNodeImports: true }).text, declarations)
    const first = cell("import { readFileSync as read } from 'node:fs'\nimport * as path from 'node:path'\nimport os from 'os'", '')
    expect(first.declarations?.split('\n')).toEqual([
      'declare const read: typeof import("node:fs").readFileSync',
      'declare const path: typeof import("node:path")',
      'declare const os: typeof import("node:os")',
    ])
    expect(
      cell("read('a.txt', 'utf8').toUpperCase()\npath.join('a', 'b').length + os.cpus().length", first.declarations!).diagnostics,
    ).toEqual([])
    const wrong = cell("const n = 1\nread('a.txt', 'utf8').toUpperCasee()", first.declarations!).diagnostics
    expect(wrong).toEqual([expect.objectContaining({ line: 2, severity: 'error', message: expect.stringMatching(/toUpperCasee/) })])
  })
})

describe('session types through prepare(): one round trip in the checker thread', () => {
  const sdk = renderDeclarations(sessionTools)

  it('the check answers the typed declarations; the text to run is the rewrite', async () => {
    const typecheck = createTypecheck('error', () => sdk)!
    const first = await typecheck.prepare("const { rows } = await tools.query_sales({ quarter: 'Q2' })", false, { declarations: '' })
    expect(first.normalised?.text).toMatch(/^for \(const __codeact_name of \["rows"\]\)/)
    expect(first.session).toEqual({
      declarations: 'declare const rows: /*sdk*/ { region: string; amount: number; day: string; }[]',
      bindings: [{ name: 'rows', kind: 'const' }],
    })
    const second = await typecheck.prepare('rows[0].amount.toFixedd()', false, first.session)
    expect(second.outcome?.count).toBe(1)
    expect(second.outcome?.report).toMatch(/^1:\d+ Property 'toFixedd' does not exist/)
  })

  it('a cell that only defines a helper defines it: it is not called as an entry point', async () => {
    const typecheck = createTypecheck('error', () => sdk)!
    const helper = "function summary() {\n  return 'ok'\n}"
    const prepared = await typecheck.prepare(helper, false, { declarations: '' })
    expect(prepared.normalised?.text).not.toMatch(/return await summary\(\)/)
    expect(prepared.session?.declarations).toBe('declare function summary(): string')
    // A stateless program like it is a script whose one function is its entry point.
    expect((await typecheck.prepare(helper, false)).normalised?.text).toMatch(/return await summary\(\)/)
  })

  it('with the check off only the rewrite runs: the declarations stay as given', async () => {
    const prep = createProgramPrep()
    const prepared = await prep.prepare('let n = 1', false, { declarations: 'declare const y: 1' })
    expect(prepared.session).toEqual({ declarations: 'declare const y: 1', bindings: [{ name: 'n', kind: 'let' }] })
    expect(prepared.normalised?.changes).toContain('session bindings made global')
  })

  it('when the check does not answer in its budget, the cell still runs and its names are declared `any`', async () => {
    const slow = createTypecheck('error', () => sdk, { budgetMs: 1_500 })!
    const hard = `type K = ${Array.from({ length: 5000 }, (_, i) => `'k${i}'`).join(' | ')}\ntype M = { [P in K]: { [Q in K]: P extends Q ? 1 : 0 } }\ndeclare const m: M\nconst all: M[K][K][] = Object.values(m).flatMap((row) => Object.values(row))\nconst count = all.length`
    const prepared = await slow.prepare(hard, false, { declarations: 'declare const count: string\ndeclare const keep: 1' })
    expect(prepared.outcome?.advisory).toMatch(/type check was skipped/)
    expect(prepared.session?.declarations.split('\n').sort()).toEqual([
      'declare const all: any',
      'declare const count: any',
      'declare const keep: 1',
    ])
  })

  it('without a session nothing changes: the text is not rewritten and there is no session answer', async () => {
    const typecheck = createTypecheck('error', () => sdk)!
    const prepared = await typecheck.prepare('const x = 1\nx', false)
    expect(prepared.normalised?.text).toBe('const x = 1\nreturn await (x)')
    expect(prepared.session).toBeUndefined()
  })

  it('the host never loads TypeScript: rewriting and typing a session cell happen in the checker thread', async () => {
    const dist = fileURLToPath(new URL('../../dist/runtime/typecheck.js', import.meta.url))
    const dir = mkdtempSync(join(tmpdir(), 'codeact-sess-nots-'))
    const script = join(dir, 'probe.mjs')
    writeFileSync(
      script,
      `import { createRequire } from 'node:module'
import { createProgramPrep, createTypecheck } from ${JSON.stringify(dist)}
const on = createTypecheck('error', () => 'interface Tools {}\\ndeclare const tools: Tools')
const a = await on.prepare('const n = 1', false, { declarations: '' })
const b = await on.prepare('n.toFixedd()', false, a.session)
const off = await createProgramPrep().prepare('let m = 2', false, { declarations: '' })
const loaded = Object.keys(createRequire(import.meta.url)('module')._cache).filter((k) => /[\\\\/]typescript[\\\\/]/.test(k))
console.log(JSON.stringify({ declarations: a.session.declarations, blocked: b.outcome.count, off: off.session.bindings, loaded }))
`,
    )
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 })
    const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>
    expect(out).toEqual({ declarations: 'declare const n: 1', blocked: 1, off: [{ name: 'm', kind: 'let' }], loaded: [] })
  })
})

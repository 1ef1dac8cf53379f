/**
 * The pre-run type check, with the real TypeScript compiler: what it stops (each with the right line), what it
 * lets through (full TypeScript syntax, no false positives), and how it follows a changed SDK.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolDefinition } from '../../vocabulary/types.js'
import { renderDeclarations } from '../../sdk/declarations.js'
import { createTypeChecker, type TypeChecker } from '../../program/typecheck.js'
import { openAiTools } from './fixtures/openai-tools.js'
import { zodTools } from './fixtures/zod-tools.js'

const myTool: ToolDefinition = {
  name: 'my-tool',
  description: 'A tool whose name is not an identifier.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
  execute: () => null,
}

// Both paths must behave the same: the resident checker (the default) and a Program per check.
describe.each([
  ['resident checker', true],
  ['program per check', false],
])('typecheck (%s)', (_mode, resident) => {
  let checker: TypeChecker
  beforeAll(async () => {
    checker = createTypeChecker({ resident })
    checker.setDeclarations(renderDeclarations([...zodTools, ...openAiTools, myTool]))
    await checker.warm()
  })

  /** The program's source, from lines (so line numbers in the expectations are easy to read). */
  const program = (...lines: string[]) => lines.join('\n')

  describe('typecheck: mistakes it stops, on the right line', () => {
    const cases: [string, string, number, RegExp][] = [
      [
        'a wrong argument type',
        program('const a = 1', 'await tools.read_file({ path: 42 })'),
        2,
        /number.*not assignable to type 'string'/,
      ],
      ['a missing required field', program('await tools.bash({ timeout_ms: 5 })'), 1, /Property 'command' is missing/],
      [
        'an unknown tool, with a suggestion',
        program('', "const r = await tools.read_fil({ path: 'a' })"),
        2,
        /`tools.read_fil` does not exist\. Did you mean tools\.read_file/,
      ],
      [
        'a tool called without `tools.`',
        program("const r = await read_file({ path: 'a' })"),
        1,
        /Cannot find name 'read_file'.*tools\.read_file/,
      ],
      [
        'a forgotten await the type shows',
        program("const s: string = tools.bash({ command: 'ls' }).then(r => r.stdout).length"),
        1,
        /Property 'length' does not exist on type 'Promise<string>'/,
      ],
      [
        'a forgotten await on a typed result',
        program("const r = tools.read_file({ path: 'a' })", 'console.log(r.content)'),
        2,
        /Property 'content' does not exist on type 'Promise<.*Did you forget `await`/,
      ],
      [
        'a promise assigned to a string',
        program("const s: string = tools.read_file({ path: 'a' })"),
        1,
        /Promise<.*>' is not assignable to type 'string'\. Did you forget `await`\?/,
      ],
      [
        'an excess property (a typo in an optional field)',
        program("await tools.read_file({ path: 'a', encodng: 'utf8' })"),
        1,
        /'encodng' does not exist/,
      ],
      [
        'a value outside an enum, with the values it may take',
        program("await tools.read_file({ path: 'a', encoding: 'latin1' })"),
        1,
        /`encoding` must be one of "utf8", .* \(enum\); it is "latin1"/,
      ],
      ['a wrong discriminant', program("await tools.edit({ path: 'a', edit: { op: 'remove', lines: [1] } })"), 1, /"remove"/],
      [
        'a method a typed result does not have',
        program("const r = await tools.read_file({ path: 'a' })", 'r.content.toUpperCas()'),
        2,
        /toUpperCas/,
      ],
      [
        'a quoted tool name with wrong arguments',
        program("await tools['my-tool']({ n: 'one' })"),
        1,
        /'string' is not assignable to type 'number'/,
      ],
      [
        'a Node API the sandbox lacks',
        program("const fs = require('fs')"),
        1,
        /`require` does not exist in this sandbox: there are no modules/,
      ],
      ['a syntax error', program('const x = 1 +', 'return x +'), 2, /expected/],
      ['an unclosed paren, at the line that opens it', program('const x = (1 +', 'return x'), 1, /This '\(' is never closed/],
    ]

    it.each(cases)('stops %s', (_name, source, line, message) => {
      const diagnostics = checker.check(source).filter((d) => d.severity === 'error')
      expect(diagnostics.length).toBeGreaterThan(0)
      expect(diagnostics[0]?.line).toBe(line)
      expect(diagnostics.map((d) => d.message).join('\n')).toMatch(message)
    })

    it('reports 1-based line and column with the offending line text', () => {
      const [d] = checker.check(program('// a comment', '  await tools.read_file({ path: 1 })'))
      expect(d).toMatchObject({ line: 2, column: 27, code: 2322, lineText: '  await tools.read_file({ path: 1 })' })
    })
  })

  describe('typecheck: working JavaScript is a note, never an error', () => {
    const notes: [string, string, RegExp][] = [
      [
        'an untyped result used as a value',
        program("const r = await tools.edit({ path: 'a', edit: { op: 'delete', lines: [1] } })", 'console.log(r.length)'),
        /tools\.edit has no declared type/,
      ],
      [
        'a typed result put in a variable of another annotated type',
        program("const r = await tools.read_file({ path: 'a' })", 'const n: number = r.content'),
        /not checked at run time/,
      ],
      [
        'a caught error field put in an annotated variable',
        program(
          "try { await tools.bash({ command: 'x' }) } catch (e) {",
          '  if (e instanceof ToolCallError) { const c: number = e.code }',
          '}',
        ),
        /not assignable/,
      ],
    ]
    it.each(notes)('notes %s', (_name, source, message) => {
      const diagnostics = checker.check(source)
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
      expect(diagnostics.map((d) => d.message).join('\n')).toMatch(message)
    })
  })

  describe('typecheck: correct programs pass', () => {
    it('accepts top-level await and return, and code after a return', () => {
      expect(checker.check(program("const r = await tools.read_file({ path: 'a' })", 'return r.content'))).toEqual([])
      expect(
        checker.check(program('if (Math.random() > 2) return 1', "const r = await tools.bash({ command: 'ls' })", 'return r.exit_code')),
      ).toEqual([])
    })

    it('accepts full TypeScript syntax', () => {
      const source = program(
        'enum Level { Low = 1, High }',
        'const enum Flag { A = "a" }',
        'namespace Util { export const twice = (n: number) => n * 2 }',
        'interface Box<T> { value: T }',
        'type Pair<A, B = A> = readonly [A, B]',
        'abstract class Shape { abstract area(): number }',
        'class Square extends Shape {',
        '  static count = 0',
        '  #side: number',
        '  constructor(side: number) { super(); this.#side = side; Square.count++ }',
        '  override area() { return this.#side ** 2 }',
        '  get side(): number { return this.#side }',
        '}',
        'function first<T>(xs: readonly T[]): T | undefined { return xs[0] }',
        'const config = { mode: "fast", retries: 3 } as const satisfies { mode: string; retries: number }',
        'async function* pages(): AsyncGenerator<number> { for (let i = 0; i < 3; i++) yield i }',
        'const seen: number[] = []',
        'for await (const p of pages()) seen.push(p)',
        'const label = (x: string | number | null): string => {',
        '  if (x === null) return "none"',
        '  if (typeof x === "number") return x.toFixed(2)',
        '  return x.toUpperCase()',
        '}',
        'const box: Box<Pair<number>> = { value: [1, 2] }',
        'const { value: [a, ...rest] } = box',
        'const maybe = first(seen)?.toString() ?? "empty"',
        'const big = 10n ** 20n',
        'const re = /(?<year>\\d{4})/u.exec("2026")?.groups?.year',
        'const sorted = [3, 1, 2].toSorted((x, y) => x - y).at(-1)',
        'const grouped = new Map<string, number[]>()',
        'label: for (const n of [1, 2]) { if (n > 1) break label }',
        'const results = await Promise.all([tools.read_file({ path: "a" }), tools.bash({ command: "ls" })])',
        'const [file, shell] = results',
        'let text: unknown = file.content',
        'if (typeof text === "string" && text.length > 0) console.log(text.slice(0, 10))',
        'const settled = await Promise.allSettled([tools["my-tool"]({ n: 1 })])',
        'try {',
        '  await tools.tag({ id: "0b5d3a8e-2f41-4c6e-9a7b-1d2e3f4a5b6c", note: null })',
        '} catch (e) {',
        '  if (e instanceof ToolCallError && e.code === "ENOENT") console.warn(e.toolName, e.message)',
        '  else throw e',
        '} finally { console.debug("done") }',
        'const r = await tools.tag({ id: "0b5d3a8e-2f41-4c6e-9a7b-1d2e3f4a5b6c", note: "n" })',
        'if (!r.ok) console.error(r.reason)',
        'const shape = await tools.draw_shape({ shape: { kind: "rect", size: [1, 2] }, color: null })',
        'const evt = await tools.create_event({ title: "t", start: "2026-12-07T18:00:00Z", attendees: [], location: null, priority: null })',
        'console.info(evt.id, shape, settled.length, grouped.size, sorted, re, big, maybe, a, rest, Level.High, Flag.A, Util.twice(2), new Square(2).area(), config.mode, shell.exit_code)',
        'return { total: seen.reduce((s, n) => s + n, 0) }',
      )
      expect(checker.check(source)).toEqual([])
    })

    it('accepts a caught error used without narrowing, as plain JavaScript would', () => {
      expect(checker.check(program('try { await tools.bash({ command: "x" }) } catch (e) { console.log(e.code) }'))).toEqual([])
    })

    it('accepts untyped helper parameters', () => {
      expect(checker.check(program('function add(a, b) { return a + b }', 'return add(1, 2)'))).toEqual([])
    })

    it('accepts omitted arguments for a tool that needs none', () => {
      expect(checker.check(program('const s: string = await tools.no_args()'))).toEqual([])
    })
  })

  describe('typecheck: the SDK can change', () => {
    it('follows new declarations without a new checker', () => {
      const own = createTypeChecker({ resident })
      own.setDeclarations(renderDeclarations([myTool]))
      const source = "await tools.read_file({ path: 'a' })"
      expect(own.check(source).map((d) => d.code)).toEqual([2339])
      own.setDeclarations(renderDeclarations([myTool, ...zodTools]))
      expect(own.check(source)).toEqual([])
      own.setDeclarations(renderDeclarations([myTool]))
      expect(own.check(source).map((d) => d.code)).toEqual([2339])
    })

    it('knows nothing of the DOM or Node, and has the safe globals the sandbox provides', () => {
      const found = checker.check(
        program(
          'document.title',
          'process.exit(1)',
          'setTimeout(() => 1, 5)',
          'Buffer.from("x")',
          'new URL("http://a/b").searchParams.get("q")',
          'btoa(atob("eA=="))',
          'new TextDecoder().decode(new TextEncoder().encode("x"))',
          'structuredClone({ a: 1 }).a',
        ),
      )
      expect(found.map((d) => [d.line, d.severity])).toEqual([
        [1, 'error'],
        [2, 'error'],
        [4, 'error'],
      ])
    })

    it('lists the tools when a misspelling is close to none', () => {
      const [d] = checker.check('await tools.zzzzzz()')
      expect(d?.message).toMatch(/Tools: tools\.bash, tools\.create_event, /)
    })
  })

  describe('typecheck: comments and long use', () => {
    it('honours @ts-ignore and @ts-expect-error on the line above, across blank and comment lines', () => {
      const source = program(
        '// @ts-ignore',
        'await tools.read_file({ path: 1 })',
        '// @ts-expect-error',
        '',
        '// why: testing',
        'const n: number = "x"',
        'const m: number = "y"',
      )
      expect(checker.check(source).map((d) => d.line)).toEqual([7])
    })

    it('gives the same answers after many checks (the resident checker is retired and rebuilt)', () => {
      const bad = "const r = await tools.read_file({ path: 'a' })\nconst n: number = r.content"
      const answers = Array.from(
        { length: 100 },
        (_, i) => checker.check(i % 2 === 0 ? bad : 'return 1').filter((d) => d.severity === 'note').length,
      )
      expect(answers).toEqual(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 0)))
    })
  })
})

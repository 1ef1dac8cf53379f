/**
 * When the REPL asks for another line (`...`) and when it runs what it has: the scanner follows strings,
 * templates, comments and regular expressions the way people type them, so a bracket inside a string never
 * keeps the prompt open and a real open bracket always does.
 */
import { describe, expect, it } from 'vitest'
import { needsMoreInput } from '../../cli/repl-complete.js'

describe('a whole program runs at once', () => {
  it.each([
    ['a declaration', 'const rows = [1, 2, 3]'],
    ['an expression', 'rows.map((n) => n * 2)'],
    ['a call with a string holding brackets', "console.log('({[ not open')"],
    ['a double-quoted string with an escaped quote', 'const s = "say \\"(\\" please"'],
    ['a template with a substitution', 'const t = `${rows.length} rows {`'],
    ['a nested template', 'const t = `a ${`b ${1 + 1} {`} c`'],
    ['a line comment with a brace', 'const x = 1 // {'],
    ['a closed block comment', 'const x = /* ( */ 1'],
    ['a regex with a bracket and a slash in a class', 'const re = /[(/]+/g'],
    ['a regex after return', 'function f() { return /\\(/.test("(") }'],
    ['a division, not a regex', 'const half = (rows.length) / 2 / 1'],
    ['a postfix increment', 'let i = 0; i++'],
    ['generic type arguments closing with >>', 'type Index = Map<string, Array<number>>'],
    ['a non-null assertion', 'const first = rows.find((n) => n > 1)!'],
    ['a number with an exponent', 'const big = 1e+21'],
    ['a hex number', 'const mask = 0xff'],
    ['a finished multi-line function', 'function add(a: number, b: number) {\n  return a + b\n}'],
    ['an unmatched closer (a syntax error the checker reports)', 'const x = 1)'],
    ['an unterminated string (a syntax error the checker reports)', "const s = 'oops"],
    ['an await of a tool', 'const files = await tools.glob({ pattern: "**/*.ts" })'],
    ['an empty line', ''],
  ])('%s', (_name, text) => {
    expect(needsMoreInput(text)).toBe(false)
  })
})

describe('an unfinished program asks for another line', () => {
  it.each([
    ['an open brace', 'function add(a: number, b: number) {'],
    ['an open paren', 'const total = sum('],
    ['an open bracket', 'const rows = ['],
    ['an object literal half written', 'const config = {\n  retries: 3,'],
    ['an open template', 'const text = `line one'],
    ['a template substitution still open', 'const text = `${rows.map((r) => {'],
    ['an open block comment', '/* a note'],
    ['a trailing plus', 'const total = 1 +'],
    ['a trailing &&', 'const ok = rows.length > 0 &&'],
    ['a trailing ??', 'const name = given ??'],
    ['a trailing arrow', 'const twice = (n: number) =>'],
    ['a trailing dot (a method chain)', 'const out = rows\n  .filter((n) => n > 1)\n  .'],
    ['a trailing comma', 'const a = 1,'],
    ['a trailing =', 'const answer ='],
    ['a type annotation waiting for its type', 'let rows:'],
    ['a string continued with a backslash', "const s = 'first \\"],
    ['brackets inside strings do not close real ones', "const x = f(')',\n  ']'"],
    ['a regex with a paren, inside an open call', 'const ok = test(/\\)/,'],
  ])('%s', (_name, text) => {
    expect(needsMoreInput(text)).toBe(true)
  })
})

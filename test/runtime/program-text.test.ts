// normaliseProgram and returnLastExpression on their own: each rewrite, that every line keeps its number,
// and the texts that must be left alone.
import { describe, expect, it } from 'vitest'
import { normaliseProgram, returnLastExpression } from '../../program/normalise.js'
import { stripFences } from '../../program/normalise-rules.js'

const lines = (s: string) => s.split('\n')

describe('normaliseProgram', () => {
  it('keeps every line of the user on its own line number', () => {
    const src = 'Sure:\n```ts\nconst a = await tools.x({})\n\nexport const b = 2\na.c\n```\nThat prints c.'
    const out = normaliseProgram(src).text
    expect(lines(out)[2]).toBe('const a = await tools.x({})')
    expect(lines(out)[4]).toBe('const b = 2')
    expect(lines(out)[5]).toBe('return await (a.c)')
    expect(lines(out).length).toBe(lines(src).length)
  })

  it('leaves text alone that only looks like markdown to a careless reader', () => {
    expect(stripFences('const x = ~~~y\n~~~z')).toBe('const x = ~~~y\n~~~z')
    const template = 'const md = `\\`\\`\\`ts\ncode\n\\`\\`\\``\nreturn md'
    expect(stripFences(template)).toBe(template)
  })

  it('unwraps export default in each form', () => {
    expect(normaliseProgram('export default async function main() { return 1 }').text).toBe(
      'async function main() { return 1 }\n;return await main();',
    )
    expect(normaliseProgram('export default async function () { return 1 }').text).toBe(
      'async function main () { return 1 }\n;return await main();',
    )
    expect(normaliseProgram('export default async () => 4').text).toBe('return await (async () => 4)()')
    expect(normaliseProgram('const v = 3\nexport default { v }').text).toBe('const v = 3\nreturn await ({ v })')
  })

  it('calls a lone entry point only when nothing calls it already', () => {
    expect(normaliseProgram('async function run() { return 1 }').changes).toContain('run() called')
    expect(normaliseProgram('async function main() { return 1 }\nawait main()').text).toBe(
      'async function main() { return 1 }\nreturn await (await main())',
    )
    // Two helpers and top-level work: nothing is guessed.
    expect(normaliseProgram('const r = await tools.x({})\nfunction helper() {}\nfunction other() {}').changes).toEqual([])
    // A program with its own top-level return keeps it.
    expect(normaliseProgram('async function main() {}\nreturn 1').changes).toEqual([])
  })

  it('never calls a helper that needs arguments, and in a session only a main-style name', () => {
    const helperOnly = "const greeting = 'hello'\nfunction shout(s: string) { return s.toUpperCase() + '!' }"
    expect(normaliseProgram(helperOnly).changes).toEqual([])
    expect(normaliseProgram('async function main(input: string) { return input }').changes).toEqual([])
    expect(normaliseProgram('function greet(name = "you") { return name }').changes).toContain('greet() called')
    // A session turn that only defines a function prepares the next turns.
    expect(normaliseProgram('async function sendAll() { await tools.send({}) }', { session: true }).changes).toEqual([])
    expect(normaliseProgram('async function main() { return 1 }', { session: true }).changes).toContain('main() called')
  })

  it('answers imports: SDK names and types dropped, packages refused on their line, node: rewritten when allowed', () => {
    expect(normaliseProgram("import type { A } from './sdk'\nimport { tools, ToolCallError } from 'codeact'\nreturn 1").text).toBe(
      '\n\nreturn 1',
    )
    const refused = normaliseProgram("const a = 1\nimport lodash from 'lodash'")
    expect(refused.problem?.line).toBe(2)
    expect(refused.problem?.message).toMatch(/^line 2: `import` is not available \(from "lodash"\)/)
    expect(
      normaliseProgram("import { readFile as rf } from 'node:fs/promises'\nimport * as path from 'path'\nimport 'node:os'", {
        allowNodeImports: true,
      }).text,
    ).toBe(
      [
        'const __codeact_node_fs_promises = await import("node:fs/promises"); const { readFile: rf } = __codeact_node_fs_promises;',
        'const __codeact_path = await import("node:path"); const path = __codeact_path;',
        'await import("node:os");',
      ].join('\n'),
    )
    expect(normaliseProgram("import fs from 'node:fs'").problem?.message).toMatch(/not available/)
  })

  it('does not rewrite a program that does not parse, and never throws', () => {
    expect(normaliseProgram('const a = (\nreturn a').text).toBe('const a = (\nreturn a')
    const deep = 'return ' + '('.repeat(100000) + '1' + ')'.repeat(100000)
    expect(normaliseProgram(deep).text.length).toBeGreaterThan(0)
  })
})

describe('returnLastExpression (the REPL rule, reused by sessions)', () => {
  it.each([
    ['x + 1', 'return await (x + 1)'],
    ['const a = 1\na', 'const a = 1\nreturn await (a)'],
    ['a = 2', 'a = 2'],
    ['i++', 'i++'],
    ['list.push(1)', 'list.push(1)'],
    ['m.set(1, 2)', 'm.set(1, 2)'],
    ['console.log(1)', 'console.log(1)'],
    ['tools.set({ v: 1 })', 'return await (tools.set({ v: 1 }))'],
    ["'use strict'", "'use strict'"],
    ['f()\nfunction f() { return 1 }', 'return await (f())\nfunction f() { return 1 }'],
    ['if (a) { b }', 'if (a) { b }'],
  ])('%s', (src, want) => {
    expect(returnLastExpression(src)).toBe(want)
  })
})

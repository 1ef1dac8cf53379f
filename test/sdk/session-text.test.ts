/**
 * A session cell's text (issue 15, program/session-text.ts): its top-level declarations become assignments to
 * the realm's globals, after normalising, with every line where the user wrote it; the result is still
 * exactly the wrapper's one function (the shape proof) and compiles with esbuild.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compile } from '../../runtime/compile.js'
import { checkWrappedShape, normaliseProgram, wrapProgram } from '../../program/normalise.js'
import { rewriteSessionProgram } from '../../program/session-text.js'
import type { ProgramCase } from '../programs/case.js'
import { conversations } from './session-cells.js'

const session = (code: string, allowNodeImports = false) => rewriteSessionProgram(normaliseProgram(code, { allowNodeImports }).text)

describe('session text: declarations made globals', () => {
  it('reads an `await` that ends its line as awaiting the next one: one binding, kept whole', () => {
    const r = session('const user = await\n  tools.get_user({ id: 1 })\nuser.name')
    expect(r.bindings).toEqual([{ name: 'user', kind: 'const' }])
    expect(r.text).toContain('user = await\n  tools.get_user({ id: 1 })')
    expect(r.text.split('\n').at(-1)).toBe('return await (user.name)')
    expect(checkWrappedShape(wrapProgram(r.text).text).ok).toBe(true)
  })

  it('rewrites each kind in place, and says what the cell binds', () => {
    const cell = [
      'const total = 3',
      'let { a, b: [c = 2, ...d], ...rest }: Record<string, any> = load()',
      'var flag',
      'let pending!: number',
      'function load() { return { a: 1, b: [] } }',
      'class Box<T> { constructor(readonly v: T) {} }',
      'enum Kind { A, B }',
      'interface Shape { n: number }',
      'total',
    ].join('\n')
    const r = session(cell)
    expect(r.text.split('\n')).toEqual([
      'for (const __codeact_name of ["total","a","c","d","rest","flag","pending","load","Box","Kind"]) if (!(__codeact_name in globalThis)) globalThis[__codeact_name] = undefined; load = __codeact_fn_load(); ;(    total = 3)',
      ';(  { a, b: [c = 2, ...d], ...rest }                      = load())',
      ';(  flag)',
      ';(  pending          = undefined)',
      'function __codeact_fn_load() { return { load: function     () { return { a: 1, b: [] } } }.load }',
      'Box = class Box<T> { constructor(readonly v: T) {} };',
      'Kind = (() => { enum Kind { A, B }; return Kind })();',
      'interface Shape { n: number }',
      'return await (total)',
    ])
    expect(r.bindings).toEqual([
      { name: 'total', kind: 'const' },
      { name: 'a', kind: 'let' },
      { name: 'c', kind: 'let' },
      { name: 'd', kind: 'let' },
      { name: 'rest', kind: 'let' },
      { name: 'flag', kind: 'var' },
      { name: 'pending', kind: 'let' },
      { name: 'load', kind: 'function' },
      { name: 'Box', kind: 'class' },
      { name: 'Kind', kind: 'enum' },
    ])
  })

  it('keeps every line, and the columns of what follows a declaration keyword', () => {
    for (const turn of conversations.flatMap((c) => c.turns)) {
      const normalised = normaliseProgram(turn.code).text
      const rewritten = rewriteSessionProgram(normalised).text
      const before = normalised.split('\n')
      const after = rewritten.split('\n')
      expect(after).toHaveLength(before.length)
      for (const [i, line] of before.entries()) {
        if (i === 0) continue // the prologue is at the start of line 1
        const declares = /^(const|let|var) /.exec(line)
        // The same text at the same columns (a `)` may close the assignment after it).
        if (declares) expect(after[i]!.slice(declares[0].length, line.length)).toBe(line.slice(declares[0].length))
        // Other lines are as written; a function's, class's or enum's last line may be followed by what closes it.
        else if (!/^(export )?(async )?(function|class|enum) /.test(line)) expect(after[i]!.startsWith(line), after[i]).toBe(true)
      }
    }
  })

  it('leaves inner scopes, ambient declarations and the names the sandbox owns as they are', () => {
    const cell = [
      'const console = { log: () => {} }',
      'const URL = "https://api.example", Map2 = 1',
      'declare const injected: number',
      'for (let i = 0; i < 2; i++) { const sq = i * i; var v = sq }',
      'if (v) { function inner() { const deep = 1; return deep } }',
      'namespace Util { export const k = 1 }',
      'const kept = (() => { let local = 2; return local })()',
    ].join('\n')
    const r = session(cell)
    expect(r.bindings).toEqual([{ name: 'kept', kind: 'const' }])
    expect(r.local).toEqual(['console', 'URL', 'Map2', 'Util'])
    expect(r.text.split('\n').slice(1, 6)).toEqual(cell.split('\n').slice(1, 6))
    expect(r.text.split('\n')[6]).toBe(';(    kept = (() => { let local = 2; return local })())')
  })

  it('a cell that declares nothing is left exactly as normalised; one that does not parse is left as written', () => {
    expect(session('await tools.x()\nreturn 1').text).toBe('await tools.x()\nreturn 1')
    const broken = 'const a = (\nconst b = 2'
    expect(rewriteSessionProgram(broken)).toEqual({ text: broken, bindings: [], local: [] })
  })

  it('node imports on Docker are bindings too, and what they bind is a global', () => {
    const r = session("import { readFile as read } from 'node:fs/promises'\nimport path from 'path'\nconst p = path.join('a', 'b')", true)
    expect(r.bindings.map((b) => b.name)).toEqual(['__codeact_node_fs_promises', 'read', '__codeact_path', 'path', 'p'])
    expect(r.text.split('\n')).toHaveLength(3)
  })

  it('keeps a line that starts with `(` or `[` from continuing the statement before it', () => {
    const r = session('const f = () => 1\nconst [x] = [f]\nconst { y } = { y: 2 }\n;[x].length')
    expect(r.text).toMatch(/\n;\(\s+\[x\] = \[f\]\)\n;\(\s+\{ y \} = \{ y: 2 \}\)\n/)
  })
})

/** Every program of the corpus, as a session cell: it compiles when the stateless program compiles, to one function. */
describe('session text: the corpus of programs, rewritten, still passes the shape proof and esbuild', async () => {
  const dir = fileURLToPath(new URL('../programs/cases', import.meta.url))
  const cases: ProgramCase[] = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts')))
    cases.push(...((await import(/* @vite-ignore */ `../programs/cases/${file}`)) as { cases: ProgramCase[] }).cases)
  const cells = [
    ...cases.map((c) => [c.name, c.code] as const),
    ...conversations.flatMap((c) => c.turns.map((t) => [c.name, t.code] as const)),
  ]

  it(`${cells.length} programs`, async () => {
    let rewritten = 0
    for (const [name, code] of cells) {
      const normalised = normaliseProgram(code, { allowNodeImports: true })
      if (normalised.problem) continue
      const plain = await compile(normalised.text)
      const r = rewriteSessionProgram(normalised.text)
      if (r.bindings.length > 0) rewritten++
      expect(r.text.split('\n').length, name).toBe(normalised.text.split('\n').length)
      const shape = checkWrappedShape(wrapProgram(r.text).text)
      const cell = await compile(r.text)
      if (plain.ok) {
        expect(shape, name).toEqual({ ok: true })
        expect(cell.ok, `${name}: ${cell.ok ? '' : cell.error.message}`).toBe(true)
      }
    }
    expect(rewritten).toBeGreaterThan(cells.length / 2)
  })
})

/**
 * Programs for the differential test of sdk/lite/ against sdk/program-text.ts and sdk/program-shape.ts:
 * every string literal of the repo's tests and examples that could be a program (the program corpora, the
 * program-text cases, the security attack programs …), the examples whole, and a generator of variants.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

const ROOT = new URL('../..', import.meta.url).pathname

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) return name === '__snapshots__' || name === 'fixtures' ? [] : files(path)
    return /\.(ts|mts)$/.test(name) ? [path] : []
  })
}

/** String literals and untagged templates (their `${…}` parts as written) of a file that look like code. */
function literals(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8')
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  const out: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text)
    else if (ts.isTemplateExpression(node) && !ts.isTaggedTemplateExpression(node.parent))
      out.push(node.getText(file).slice(1, -1).replace(/\\`/g, '`'))
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out.filter((s) => s.length >= 3 && /[(){};=\n`]|return|await|import|export/.test(s))
}

export function corpusPrograms(): string[] {
  const set = new Set<string>()
  for (const path of [...files('test'), ...files('examples')]) for (const s of literals(path)) set.add(s)
  for (const path of files('examples')) set.add(readFileSync(join(ROOT, path), 'utf8'))
  return [...set]
}

const HEADS = ['', 'const a = 1\n', "'use strict'\n", '// comment\n', '/* c */ ', 'type T = { a: number }\n', 'interface I { x: string }\n']
const BODIES = [
  'await tools.search({ q: "x" })',
  'async function main() { return 1 }',
  'async function main(n = 2) { return n }',
  'async function run(x: number) { return x }',
  'function helper() { return 2 }',
  'export default async function () { return 3 }',
  'export default async function* () { yield 3 }',
  'export default function named() { return 4 }',
  'export default async () => 5',
  'export default (async () => 5)',
  'export default { a: 1 }',
  'export = 6',
  'export const x = 7',
  'export { a }',
  'export type { T }',
  'export * from "y"',
  'export declare const d: number',
  'export enum E { A, B }',
  'export namespace N { export const v = 1 }',
  'export abstract class C {}',
  'export default class {}',
  'export default interface D {}',
  'export /* c */ default /* d */ async function /* e */ () {}',
  'import { readFile } from "node:fs/promises"',
  'import fs, { join as j, type Stats } from "path"',
  'import * as os from "os"',
  'import "node:crypto"',
  'import {} from "left-pad"',
  'import type { X } from "types"',
  'import { tools, type ToolCallError } from "codeact"',
  'import * as tools from "sdk"',
  'import { "a-b" as ab } from "node:util"',
  'import x = require("y")',
  'import type T2 = require("y")',
  'list.push(1)',
  'tools.set({ k: 1 })',
  'map.set?.(1, 2)',
  'a?.b.push(1)',
  'x = 1',
  'x ||= 2',
  'i++',
  '--i',
  'delete o.k',
  'void 0',
  '(x)',
  '"a string"',
  '`template ${1}`',
  'x as number',
  'x satisfies number',
  '<number>x',
  'x!',
  'f<string>(1)',
  'a, b',
  'new Date()',
  'enum Color { Red }',
  'const enum K { A = 1 }',
  'namespace NS { export const z = 1 }',
  'declare module "m" { }',
  'declare global { var g: number }',
  'declare function df(): void',
  'declare const dc: number',
  'function over(a: string): void\nfunction over(a: any) {}',
  'class K2 { #p = 1; static s = 2; get g() { return 1 } m<T>(t: T) { return t } }',
  'abstract class A2 { abstract m(): void }',
  'class P { constructor(private readonly q: number) {} }',
  'label: for (const v of [1]) { break label }',
  'for await (const v of gen()) {}',
  'using r = res()',
  'return 9',
  'const r2 = await\nfoo()',
  'let y: Array<Map<string, number>> = []',
  'const fnv = async () => { await tools.go() }',
  'const c3 = class { x = f() }',
  'const o3 = { [k()]() {} }',
  'type Main<main> = main',
  'obj.main',
  'main',
  'this.#x.push(1)',
  'if (a) { b() }',
  'try { a() } catch { }',
  ';',
  '}); evil(); (async function () {',
  '})',
  '/* }) */',
  '`})`',
  '({})',
  'x\n})\n(async function () {',
  '<T,>(t: T) => t',
  'let v2 = 010',
  'with (o) {}',
  'let d1 = 1; let d1 = 2',
  'new.target',
  'super.x',
  'import.meta',
  'await (x)',
  'yield',
  'accessor',
  '@dec class DC {}',
  '@dec export class DE {}',
  'export @dec class DF {}',
  'function go(this: Window) {}',
  'function solve({ a }?: { a: number }) { return a }',
  'function task(...rest: number[]) { return rest }',
  'export function start() {}\nstart()',
  'async function main() {}\nmain',
  'async function main() {}\nconst m = main',
  'async function script() {}\nconst q = 1',
  'async function script() {}\nconst q = f()',
  '#!/usr/bin/env node',
  '<!-- }); evil(); (async function () {',
  'x\n--> }); evil(); (async function () {',
  '/* */ --> })',
  'a <!--b',
  '`${"})"}`',
  "'\\u2028'; })",
  'x\u2028}); evil(); (async function () {',
  '/[/}]/',
  'a / 2 /})',
  'let re = /})/; re',
  '// })\n1',
]
const TAILS = ['', '\n', ';', '\n// end', '\nconsole.log(1)', '\nawait x', '\nasync function main() { return 1 }', '\nexport default main']
const WRAPS: ((s: string) => string)[] = [
  (s) => s,
  (s) => `\`\`\`ts\n${s}\n\`\`\``,
  (s) => `Here:\n\`\`\`\n${s}\n\`\`\`\nDone.`,
  (s) => `\uFEFF${s}`,
  (s) => s.replace(/\n/g, '\r\n'),
  (s) => `#!/usr/bin/env node\n${s}`,
]

/** Every head × body × tail (each also through one of the wrappers, in turn), and pairs of bodies. */
export function generatedPrograms(): string[] {
  const out = new Set<string>()
  let n = 0
  for (const head of HEADS)
    for (const body of BODIES)
      for (const tail of TAILS) {
        const program = head + body + tail
        out.add(program)
        out.add(WRAPS[n++ % WRAPS.length]!(program))
      }
  // Pairs of bodies, one in five (every pair is ~12,000 programs: minutes under load for little more).
  for (const [i, a] of BODIES.entries()) for (const [j, b] of BODIES.entries()) if ((i + j) % 5 === 0) out.add(`${a}\n${b}`)
  return [...out]
}

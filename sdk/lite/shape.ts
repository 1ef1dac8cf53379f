/**
 * sdk/program-shape.ts's proofs without TypeScript: the wrapped source as Babel reads TypeScript, and
 * esbuild's output as acorn (a spec-conforming JavaScript parser, as V8 is) reads JavaScript. Both, because
 * the danger is exactly a text two parsers read differently: each must be the wrapper's one function.
 */
import type { Node } from '@babel/types'
import { type ProgramProblem, type ShapeResult, WRAP_LINE_OFFSET, wrapperVerdict } from '../program-wrap.js'
import { type LiteParse, lineAndColumn, parseProgram } from './parse.js'
import { topStatements } from './statements.js'
import { loadCached } from './parser-load.js'

/** acorn, from its code cache when there is one (sdk/lite/parser-load.ts). */
const acorn = loadCached<typeof import('acorn')>('acorn')

/** A function expression as either parser has it. */
interface FunctionShape {
  type: string
  id?: unknown
  params: unknown[]
  async: boolean
  generator: boolean
  body: { end: number }
}

interface StatementShape {
  type: string
  end: number
  expression?: { type: string; expression?: FunctionShape }
}

/**
 * checkWrappedShape (sdk/program-shape.ts), same answers: `ts` reads the wrapped source, `js` esbuild's
 * output. Throws a RangeError past the parser's stack (a 50,000-term `1+1+…`): the caller asks TypeScript's
 * proof instead, which reads such a text without recursing.
 */
export function checkWrappedShapeLite(text: string, language: 'ts' | 'js' = 'ts'): ShapeResult {
  return parseWrappedShapeLite(text, language).shape
}

/** checkWrappedShapeLite, with Babel's parse of a `ts` text (oxc's gate, sdk/lite/fast-gate.ts, walks it). */
export function parseWrappedShapeLite(text: string, language: 'ts' | 'js' = 'ts'): { shape: ShapeResult; parsed?: LiteParse } {
  let statements: StatementShape[]
  let parsed: LiteParse | undefined
  try {
    if (language === 'ts') {
      parsed = parseProgram(text)
      statements = sourceStatements(parsed)
    } else statements = outputStatements(text)
  } catch (e) {
    if (e instanceof RangeError) throw e
    // A text the parser rejects is not proven (esbuild accepted it, or this would not be asked).
    return { shape: { ok: false, problem: unparsed(text, e) } }
  }
  return { shape: wrapperShape(text, language, statements), ...(parsed ? { parsed } : {}) }
}

function wrapperShape(text: string, language: 'ts' | 'js', statements: StatementShape[]): ShapeResult {
  const fn = wrapperFunction(statements)
  const found = fn ? { bodyEnd: fn.body.end, statements: statements.length } : undefined
  return wrapperVerdict(text, language, found, statements[0]?.end ?? 0, (pos) => lineAndColumn(text, pos))
}

/** topLevelNamespaceSpans (sdk/program-shape.ts): each top-level `namespace X { … }` (or `module`, `declare global`). */
export function topLevelNamespaceSpansLite(source: string): { start: number; end: number }[] {
  const parsed = parseProgram(source)
  if (parsed.file === undefined) return []
  return topStatements(parsed.file.program, source)
    .filter((s) => s.kind === 'module')
    .map((s) => ({ start: s.exported?.start ?? s.start, end: s.end }))
}

function sourceStatements(parsed: LiteParse): StatementShape[] {
  if (parsed.file === undefined) throw new SyntaxError('the wrapped program does not parse')
  const statements: Node[] = [...parsed.file.program.directives, ...parsed.file.program.body]
  return statements as unknown as StatementShape[]
}

function outputStatements(text: string): StatementShape[] {
  // allowImportExportEverywhere: `import.meta` parses (as TypeScript's JS parser lets it; V8 rejects it later).
  const program = acorn.module.parse(text, {
    ecmaVersion: 'latest',
    sourceType: 'script',
    preserveParens: true,
    allowImportExportEverywhere: true,
  })
  acorn.saveAfterUse()
  return program.body as unknown as StatementShape[]
}

function wrapperFunction(statements: StatementShape[]): FunctionShape | undefined {
  const first = statements[0]
  if (first?.type !== 'ExpressionStatement') return undefined
  const paren = first.expression
  if (paren?.type !== 'ParenthesizedExpression') return undefined
  const e = paren.expression
  if (e?.type !== 'FunctionExpression' || e.id || e.params.length !== 0) return undefined
  if (!e.async || e.generator) return undefined
  return e
}

function unparsed(text: string, e: unknown): ProgramProblem {
  const pos = typeof (e as { pos?: unknown }).pos === 'number' ? (e as { pos: number }).pos : 0
  const lc = lineAndColumn(text, Math.min(pos, text.length))
  const line = Math.max(1, lc.line + 1 - WRAP_LINE_OFFSET)
  const why = e instanceof Error ? e.message.replace(/ \(\d+:\d+\)$/, '') : String(e)
  return { message: `line ${line}: the program's wrapper could not be proved (${why})`, line, column: lc.character + 1, syntax: why }
}

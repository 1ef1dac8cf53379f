/**
 * The wrapper's shape, proved by parsing (program/normalise.ts's wrapper): a program body that would close
 * the wrapping function early — code to one parser, a comment or a string to another — never runs. Runs in
 * the checker's thread (TypeScript's parser), never on the host's.
 */
import type TS from 'typescript'
import { type ProgramProblem, type ShapeResult, WRAP_LINE_OFFSET, wrapperVerdict } from './wrap.js'
import { parseErrorsOf, ts } from './ts-host.js'

/**
 * Proves that the wrapped text is one statement: the wrapper's own function, whose body ends at the
 * wrapper's own `}`. Anything else (a `}` in the body closing the function early, text after it) is a
 * problem, reported at the user's line. Call it on a text that parses; syntax errors are the compiler's.
 * With `language: 'js'` it checks compiled output (same shape, any whitespace).
 */
export function checkWrappedShape(text: string, language: 'ts' | 'js' = 'ts'): ShapeResult {
  return parseWrappedShape(text, language).shape
}

/** checkWrappedShape, with the parsed file (absent: too deep to parse) for a caller that reads it further. */
export function parseWrappedShape(text: string, language: 'ts' | 'js' = 'ts'): { shape: ShapeResult; file?: TS.SourceFile } {
  const kind = language === 'ts' ? ts.ScriptKind.TS : ts.ScriptKind.JS
  let file: TS.SourceFile
  try {
    file = ts.createSourceFile(language === 'ts' ? 'program.ts' : 'program.js', text, ts.ScriptTarget.ES2022, true, kind)
  } catch {
    // Too deep for the parser's stack: not proven, so not run.
    return { shape: { ok: false, problem: { message: 'the program is nested too deeply to be checked; flatten it', line: 1, column: 1 } } }
  }
  return { shape: shapeOf(file, text, language), file }
}

function shapeOf(file: TS.SourceFile, text: string, language: 'ts' | 'js'): ShapeResult {
  // Compiled output the sandbox's parser would reject (a regular expression's pattern the compiler let
  // through, `/(/`): a syntax error at its position, not a wrapper broken out of.
  const broken = language === 'js' ? parseErrorsOf(file)[0] : undefined
  if (broken) return { ok: false, problem: syntaxError(file, broken) }
  const fn = wrapperFunction(file)
  const found = fn ? { bodyEnd: fn.body.end, statements: file.statements.length } : undefined
  return wrapperVerdict(text, language, found, firstStatementEnd(file), (pos) => file.getLineAndCharacterOfPosition(pos))
}

function syntaxError(file: TS.SourceFile, d: TS.DiagnosticWithLocation): ProgramProblem {
  const lc = file.getLineAndCharacterOfPosition(Math.min(d.start, file.text.length))
  const line = Math.max(1, lc.line + 1 - WRAP_LINE_OFFSET)
  const why = ts.flattenDiagnosticMessageText(d.messageText, ' ')
  return { message: `line ${line}: the program's wrapper could not be proved (${why})`, line, column: lc.character + 1, syntax: why }
}

/**
 * Where each top-level `namespace X { … }` of a program body is (esbuild allows `namespace` only at a
 * module's top level, so the compiler compiles each on its own and splices the JS back in place).
 */
export function topLevelNamespaceSpans(source: string): { start: number; end: number }[] {
  const file = ts.createSourceFile('program.ts', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  return file.statements.filter((s) => ts.isModuleDeclaration(s)).map((s) => ({ start: s.getStart(file), end: s.end }))
}

function wrapperFunction(file: TS.SourceFile): TS.FunctionExpression | undefined {
  const first = file.statements[0]
  if (!first || !ts.isExpressionStatement(first)) return undefined
  let e: TS.Expression = first.expression
  if (!ts.isParenthesizedExpression(e)) return undefined
  e = e.expression
  if (!ts.isFunctionExpression(e) || e.name || e.parameters.length !== 0) return undefined
  if (!e.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) || e.asteriskToken) return undefined
  return e
}

function firstStatementEnd(file: TS.SourceFile): number {
  return file.statements[0]?.end ?? 0
}

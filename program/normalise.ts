/**
 * The program text: what a model wrote, normalised to the body of one async function, and the ONE wrapper
 * the type checker and the compiler both put around it (so no text can be a comment to one and code to the
 * other).
 *
 *   normaliseProgram(source)  fences stripped, `export` unwrapped, a lone `main` called, the last
 *                             expression returned, `import` answered — every line stays on its own line
 *   wrapProgram(body)         `(async function () { 'use strict';` + "\n" + body + "\n" + `})`
 *   checkWrappedShape(w)      (program-shape.ts) parses the wrapped text and proves it is that one function
 *
 * The wrapped function takes no parameters: `tools`, `ToolCallError` and `console` are globals of the
 * sandbox (the prelude defines them, read-only) and of the SDK's declarations, so the checker and the
 * sandbox resolve the same names the same way.
 */
import type TS from 'typescript'
import { isAmbient, parseErrorsOf, parseProgramBody, ts } from './ts-host.js'
import type { ProgramProblem } from './wrap.js'
import { cleanProgramText, MAIN_NAMES, MUTATOR_METHODS, NODE_BUILTINS, PROGRAM_GLOBALS } from './normalise-rules.js'

export { checkWrappedShape } from './shape.js'
export { type ProgramProblem, WRAP_LINE_OFFSET, wrapProgram } from './wrap.js'

export interface NormaliseOptions {
  /**
   * Rewrite top-level `import … from 'node:…'` into awaited dynamic imports (the Docker backend, where
   * Node's modules are reachable). Otherwise an `import` of anything but the SDK's own names is refused.
   */
  allowNodeImports?: boolean
  /**
   * A session turn: a turn that only defines functions is preparing later turns, so only a main-style name
   * or a default export is called; the "only function" rule is for one-shot programs.
   */
  session?: boolean
}

export interface NormalisedProgram {
  /** The function body to wrap. Same line count as the source up to its last line (lines are appended only). */
  text: string
  /** What was changed, one short phrase each (for logs and tests; the model is not told). */
  changes: string[]
  problem?: ProgramProblem
}

interface Edit {
  start: number
  end: number
  text: string
}

export function normaliseProgram(source: string, options: NormaliseOptions = {}): NormalisedProgram {
  try {
    return normalise(source, options)
  } catch {
    // The parser gave up (a program nested past its stack): leave the text as written; the compiler and
    // the shape check of its output still decide whether it runs.
    return { text: source, changes: [] }
  }
}

function normalise(source: string, options: NormaliseOptions): NormalisedProgram {
  const changes: string[] = []
  const text = cleanProgramText(source, changes)
  const file = parseProgramBody(text)
  // On a syntax error nothing else is rewritten: the compiler reports the user's text as written.
  if (parseErrorsOf(file).length > 0) return { text, changes }

  const edits: Edit[] = []
  const modules = rewriteModuleSyntax(file, options, edits, changes)
  if (modules.problem) return { text, changes, problem: modules.problem }
  const last = lastExpressionEdit(file, modules.defaultExpression)
  if (last) {
    edits.push(last)
    changes.push('last expression returned')
  }
  let out = applyEdits(text, edits)
  if (!last) {
    const entry = loneEntryPoint(file, modules.defaultFunction, options.session === true)
    if (entry) {
      out += `${out.endsWith('\n') ? '' : '\n'};return await ${entry}();`
      changes.push(`${entry}() called`)
    }
  }
  return { text: out, changes }
}

/**
 * REPL/Jupyter rule, on its own for reuse (sessions): if the last statement that runs is an expression,
 * its awaited value becomes the return value. Returns the text unchanged when it does not apply.
 */
export function returnLastExpression(body: string): string {
  let file: TS.SourceFile
  try {
    file = parseProgramBody(body)
  } catch {
    return body
  }
  if (parseErrorsOf(file).length > 0) return body
  const edit = lastExpressionEdit(file, undefined)
  return edit ? applyEdits(body, [edit]) : body
}

// --- normalisation steps -------------------------------------------------------------------------------

interface ModuleRewrite {
  problem?: ProgramProblem
  /** `export default function main` / `export default async function` (named `main` when anonymous). */
  defaultFunction?: string
  /** `export default <expression>`: the expression, to be returned when it is the last statement. */
  defaultExpression?: TS.ExportAssignment
}

function rewriteModuleSyntax(file: TS.SourceFile, options: NormaliseOptions, edits: Edit[], changes: string[]): ModuleRewrite {
  const result: ModuleRewrite = {}
  for (const s of file.statements) {
    if (ts.isImportDeclaration(s)) {
      const edit = importEdit(file, s, options)
      if ('problem' in edit) return { problem: edit.problem }
      edits.push(edit)
      changes.push(edit.text ? 'node import made dynamic' : 'import removed')
    } else if (ts.isImportEqualsDeclaration(s)) {
      return { problem: importProblem(file, s, s.moduleReference.getText(file)) }
    } else if (ts.isExportAssignment(s)) {
      // `export default expr` (or `export = expr`): the expression stays as a statement of its own.
      edits.push({ start: s.getStart(file), end: s.expression.getStart(file), text: '' })
      result.defaultExpression = s
      changes.push('export default removed')
    } else if (ts.isExportDeclaration(s)) {
      edits.push({ start: s.getStart(file), end: s.end, text: '' })
      changes.push('export list removed')
    } else if (ts.canHaveModifiers(s)) {
      const mods = ts.getModifiers(s) ?? []
      const exp = mods.find((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      if (!exp) continue
      const def = mods.find((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
      const end = (def ?? exp).end
      const named = (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name
      // An anonymous default function gets a name, so it can be called.
      const anonymousFunction = def && ts.isFunctionDeclaration(s) && !s.name
      edits.push({ start: exp.getStart(file), end: skipSpaces(file.text, end), text: '' })
      if (anonymousFunction) {
        const at = s.asteriskToken?.end ?? s.getChildren(file).find((c) => c.kind === ts.SyntaxKind.FunctionKeyword)?.end
        if (at !== undefined) edits.push({ start: at, end: at, text: ' main' })
        result.defaultFunction = 'main'
      } else if (def && ts.isFunctionDeclaration(s) && named) result.defaultFunction = s.name!.text
      changes.push('export removed')
    }
  }
  return result
}

function skipSpaces(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++
  return at
}

function importEdit(file: TS.SourceFile, s: TS.ImportDeclaration, options: NormaliseOptions): Edit | { problem: ProgramProblem } {
  const spec = ts.isStringLiteral(s.moduleSpecifier) ? s.moduleSpecifier.text : s.moduleSpecifier.getText(file)
  const clause = s.importClause
  const start = s.getStart(file)
  // Types only (or only the sandbox's own names): nothing to load, the line goes.
  if (clause?.isTypeOnly || (clause && onlyProgramGlobals(clause))) return { start, end: s.end, text: '' }
  const builtin = spec.startsWith('node:') || NODE_BUILTINS.has(spec)
  if (!options.allowNodeImports || !builtin) return { problem: importProblem(file, s, spec) }
  const from = JSON.stringify(spec.startsWith('node:') ? spec : `node:${spec}`)
  if (!clause) return { start, end: s.end, text: `await import(${from});` }
  const parts: string[] = []
  const ns = `__codeact_${spec.replace(/\W/g, '_')}`
  const bindings = clause.namedBindings
  if (clause.name) parts.push(`const ${clause.name.text} = ${ns}.default;`)
  if (bindings && ts.isNamespaceImport(bindings)) parts.push(`const ${bindings.name.text} = ${ns};`)
  if (bindings && ts.isNamedImports(bindings)) {
    const names = bindings.elements
      .filter((e) => !e.isTypeOnly)
      .map((e) => (e.propertyName ? `${e.propertyName.getText(file)}: ${e.name.text}` : e.name.text))
    if (names.length) parts.push(`const { ${names.join(', ')} } = ${ns};`)
  }
  return { start, end: s.end, text: `const ${ns} = await import(${from}); ${parts.join(' ')}` }
}

function onlyProgramGlobals(clause: TS.ImportClause): boolean {
  const globals: readonly string[] = PROGRAM_GLOBALS
  if (clause.name && !globals.includes(clause.name.text)) return false
  const b = clause.namedBindings
  if (!b) return clause.name !== undefined
  if (ts.isNamespaceImport(b)) return b.name.text === 'tools'
  return b.elements.every((e) => e.isTypeOnly || globals.includes(e.name.text))
}

function importProblem(file: TS.SourceFile, s: TS.Statement, spec: string): ProgramProblem {
  const lc = file.getLineAndCharacterOfPosition(s.getStart(file))
  const line = lc.line + 1
  return {
    message:
      `line ${line}: \`import\` is not available (from ${JSON.stringify(spec)}): the program is the body of an async function ` +
      'in a sandbox without modules. Remove the import; call tools as `await tools.name(args)` and use the built-ins (JSON, Math, Map, URL, …).',
    line,
    column: lc.character + 1,
  }
}

/** Statements that do nothing when reached: hoisted functions and type-only declarations. */
function isInert(s: TS.Statement): boolean {
  if (ts.isFunctionDeclaration(s) || ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEmptyStatement(s)) return true
  if (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) return true
  return isAmbient(s)
}

function lastExpressionEdit(file: TS.SourceFile, exported: TS.ExportAssignment | undefined): Edit | undefined {
  const statements = file.statements
  let i = statements.length - 1
  while (i >= 0 && isInert(statements[i]!)) i--
  const last = statements[i]
  if (!last) return undefined
  let expr: TS.Expression
  if (ts.isExpressionStatement(last)) expr = last.expression
  else if (last === exported) expr = exported.expression
  else return undefined
  // A lone string at the top is a directive ('use strict'), not an answer.
  if (i === 0 && ts.isStringLiteral(expr) && ts.isExpressionStatement(last)) return undefined
  if (!answersWith(expr)) return undefined
  const start = expr.getStart(file)
  const inner = file.text.slice(start, expr.end)
  // `export default async () => {…}` is an entry point: call it.
  const call = last === exported && (ts.isArrowFunction(expr) || ts.isFunctionExpression(expr)) ? '()' : ''
  return { start, end: expr.end, text: `return await (${inner})${call}` }
}

/** Whether an expression's value is worth returning (an assignment or `list.push(x)` is not). */
function answersWith(expr: TS.Expression): boolean {
  let e = expr
  while (ts.isParenthesizedExpression(e)) e = e.expression
  if (ts.isBinaryExpression(e)) {
    const k = e.operatorToken.kind
    if (k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment) return false
  }
  if (ts.isPrefixUnaryExpression(e) || ts.isPostfixUnaryExpression(e)) {
    const op = e.operator
    if (op === ts.SyntaxKind.PlusPlusToken || op === ts.SyntaxKind.MinusMinusToken) return false
  }
  if (ts.isDeleteExpression(e) || ts.isVoidExpression(e)) return false
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) {
    const receiver = e.expression.expression
    const isTools = ts.isIdentifier(receiver) && receiver.text === 'tools'
    if (!isTools && MUTATOR_METHODS.has(e.expression.name.text)) return false
  }
  return true
}

/**
 * A program that only declares an entry point (`async function main() {…}` and nothing that runs) means
 * "run it": the entry is the default export, a main-style name, or the only function; it is called only
 * when nothing at the top level refers to it already.
 */
function loneEntryPoint(file: TS.SourceFile, defaultFunction: string | undefined, session: boolean): string | undefined {
  const functions = file.statements.filter(
    (s): s is TS.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.body !== undefined && s.name !== undefined,
  )
  const mains = functions.filter((f) => MAIN_NAMES.has(f.name!.text))
  let entry: TS.FunctionDeclaration | undefined
  if (defaultFunction) {
    // An anonymous `export default function` was named `main` by rewriteModuleSyntax.
    const anonymous = file.statements.find(
      (s): s is TS.FunctionDeclaration => ts.isFunctionDeclaration(s) && !s.name && s.body !== undefined,
    )
    if (anonymous && defaultFunction === 'main' && !functions.some((f) => f.name!.text === 'main')) {
      return file.statements.some((s) => ts.isReturnStatement(s)) ? undefined : 'main'
    }
    entry = functions.find((f) => f.name!.text === defaultFunction)
  } else if (mains.length === 1) entry = mains[0]
  else if (!session && functions.length === 1 && !file.statements.some(runsSomething)) entry = functions[0]
  // A function that needs arguments is a helper, never an entry point to call with none.
  if (!entry || (!defaultFunction && !entry.parameters.every(isOptionalParameter))) return undefined
  const name = entry.name!.text
  if (referencedOutside(file, entry, name)) return undefined
  if (file.statements.some((s) => ts.isReturnStatement(s))) return undefined
  return name
}

function isOptionalParameter(p: TS.ParameterDeclaration): boolean {
  return p.questionToken !== undefined || p.initializer !== undefined || p.dotDotDotToken !== undefined
}

/** A top-level statement that does work when reached (anything but declarations without calls). */
function runsSomething(s: TS.Statement): boolean {
  if (isInert(s) || ts.isClassDeclaration(s) || ts.isEnumDeclaration(s) || ts.isModuleDeclaration(s)) return false
  if (ts.isVariableStatement(s))
    return s.declarationList.declarations.some((d) => d.initializer !== undefined && containsCallOrAwait(d.initializer))
  return true
}

function containsCallOrAwait(node: TS.Node): boolean {
  if (ts.isCallExpression(node) || ts.isAwaitExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node))
    return true
  if (ts.isFunctionLike(node)) return false
  return ts.forEachChild(node, containsCallOrAwait) ?? false
}

function referencedOutside(file: TS.SourceFile, decl: TS.Node, name: string): boolean {
  let found = false
  const visit = (node: TS.Node): void => {
    if (found || node === decl) return
    if (ts.isIdentifier(node) && node.text === name) found = true
    else ts.forEachChild(node, visit)
  }
  ts.forEachChild(file, visit)
  return found
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  return out
}

/**
 * normaliseProgram made total: a text that overflows the parser's stack is a problem to report, never a
 * throw. The checker's thread calls it (a pathological program stalls that thread, under its budget, never
 * the host's).
 */
export function normaliseSafely(code: string, allowNodeImports: boolean, session = false): NormalisedProgram {
  try {
    return normaliseProgram(code, { allowNodeImports, ...(session ? { session } : {}) })
  } catch (e) {
    const why =
      e instanceof RangeError ? 'it nests too deeply to parse' : `the normaliser failed (${e instanceof Error ? e.message : String(e)})`
    return { text: code, changes: [], problem: { message: `the program cannot be compiled: ${why}`, line: 1, column: 1 } }
  }
}

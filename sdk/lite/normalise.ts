/**
 * sdk/program-text.ts's normaliseProgram without TypeScript: the same rules over Babel's AST, giving the
 * same NormalisedProgram byte for byte (test/sdk/lite-differential.test.ts runs every program of the repo's
 * corpora and a generator of variants through both). The checker's thread uses it for check-off runs, so a
 * process that never checks a program never loads TypeScript. Keep the two in step: a rule changed there
 * is changed here, and the differential test says where they part.
 */
import type { Expression, FunctionDeclaration, ImportDeclaration, Node } from '@babel/types'
import type { NormaliseOptions, NormalisedProgram } from '../program-text.js'
import { cleanProgramText, MUTATOR_METHODS, NODE_BUILTINS, PROGRAM_GLOBALS } from '../program-rules.js'
import type { ProgramProblem } from '../program-wrap.js'
import { entryPoint } from './entry.js'
import { type LiteParse, lineAndColumn, parseProgram } from './parse.js'
import { isInert, skipTrivia, type StatementList, type TopStatement, topStatements } from './statements.js'

interface Edit {
  start: number
  end: number
  text: string
}

/**
 * Throws where Babel's stack gives out (a RangeError on a program nested past it; TypeScript's parser may
 * still read it): the caller then normalises with sdk/program-text.ts, so the answer stays TypeScript's.
 */
export function normaliseLite(source: string, options: NormaliseOptions = {}): NormalisedProgram {
  const changes: string[] = []
  const text = cleanProgramText(source, changes)
  return normaliseParsed(text, changes, parseProgram(text), options)
}

/** normaliseLite's rules over Babel's parse of `text` (cleaned, sdk/program-rules.ts) as a script. */
export function normaliseParsed(text: string, changes: string[], parsed: LiteParse, options: NormaliseOptions): NormalisedProgram {
  if (parsed.syntaxError) return { text, changes }
  return normaliseBody({ indexed: text, bodyStart: 0, program: parsed.file.program, root: parsed.file }, text, changes, options)
}

/**
 * Where a program's statements were read: in `indexed` (the positions of their nodes count there), whose
 * slice from `bodyStart` is the program's text `text` (the rest is a wrapper around it, sdk/lite/one-parse.ts).
 */
export interface ParsedBody {
  indexed: string
  bodyStart: number
  program: StatementList
  /** The node whose subtree is the whole program (an entry point is called only if nothing in it names it). */
  root: Node
}

/** The rules over statements read without a syntax error; `text`: the cleaned program, `changes`: cleaning's. */
export function normaliseBody(body: ParsedBody, text: string, changes: string[], options: NormaliseOptions): NormalisedProgram {
  const { indexed, bodyStart } = body
  const statements = topStatements(body.program, indexed)

  const edits: Edit[] = []
  const modules = rewriteModuleSyntax(body, text, statements, options, edits, changes)
  if (modules.problem) return { text, changes, problem: modules.problem }
  const last = lastExpressionEdit(indexed, statements, modules.defaultExpression)
  if (last) {
    edits.push(last)
    changes.push('last expression returned')
  }
  // Every edit lies inside the program's own span, so what follows it in `indexed` is unchanged.
  const edited = applyEdits(indexed, edits)
  let out = edited.slice(bodyStart, edited.length - (indexed.length - bodyStart - text.length))
  if (!last) {
    const entry = entryPoint(body.root, statements, modules.defaultFunction, options.session === true)
    if (entry) {
      out += `${out.endsWith('\n') ? '' : '\n'};return await ${entry}();`
      changes.push(`${entry}() called`)
    }
  }
  return { text: out, changes }
}

interface ModuleRewrite {
  problem?: ProgramProblem
  defaultFunction?: string
  defaultExpression?: TopStatement
}

function rewriteModuleSyntax(
  { indexed, bodyStart }: ParsedBody,
  source: string,
  statements: TopStatement[],
  options: NormaliseOptions,
  edits: Edit[],
  changes: string[],
): ModuleRewrite {
  const text = indexed
  const result: ModuleRewrite = {}
  for (const s of statements) {
    if (s.kind === 'import') {
      const edit = importEdit(text, bodyStart, source, s.node as ImportDeclaration, options)
      if ('problem' in edit) return { problem: edit.problem }
      edits.push(edit)
      changes.push(edit.text ? 'node import made dynamic' : 'import removed')
    } else if (s.kind === 'importEquals') {
      const ref = (s.node as { moduleReference: Node }).moduleReference
      return { problem: importProblem(source, s.start - bodyStart, text.slice(ref.start!, ref.end!)) }
    } else if (s.kind === 'exportAssignment') {
      edits.push({ start: s.start, end: s.expression!.start!, text: '' })
      result.defaultExpression = s
      changes.push('export default removed')
    } else if (s.kind === 'exportDeclaration') {
      edits.push({ start: s.start, end: s.end, text: '' })
      changes.push('export list removed')
    } else if (s.exported) {
      const { start, end, isDefault } = s.exported
      const fn = s.kind === 'function' ? (s.node as FunctionDeclaration) : undefined
      const named = (s.kind === 'function' || s.kind === 'class') && (s.node as { id?: unknown }).id
      edits.push({ start, end: skipSpaces(text, end), text: '' })
      if (isDefault && fn && !fn.id) {
        const at = functionNameAt(text, fn)
        edits.push({ start: at, end: at, text: ' main' })
        result.defaultFunction = 'main'
      } else if (isDefault && fn && named) result.defaultFunction = fn.id!.name
      changes.push('export removed')
    }
  }
  return result
}

/** Just after `function` (or its `*`): where an anonymous default function gets its name. */
function functionNameAt(text: string, fn: FunctionDeclaration): number {
  let at = fn.start!
  if (fn.async) at = skipTrivia(text, at + 5)
  at += 8 // `function`
  if (fn.generator) at = skipTrivia(text, at) + 1
  return at
}

function skipSpaces(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++
  return at
}

/** `text`: what the node's positions count in; `source` the program itself, from `bodyStart` in `text` (for the line of a problem). */
function importEdit(
  text: string,
  bodyStart: number,
  source: string,
  s: ImportDeclaration,
  options: NormaliseOptions,
): Edit | { problem: ProgramProblem } {
  const spec = s.source.value
  const start = s.start!
  const hasClause = s.specifiers.length > 0 || hasBraces(text, start, s.source.start!)
  if (hasClause && (s.importKind === 'type' || onlyProgramGlobals(s))) return { start, end: s.end!, text: '' }
  const builtin = spec.startsWith('node:') || NODE_BUILTINS.has(spec)
  if (!options.allowNodeImports || !builtin) return { problem: importProblem(source, start - bodyStart, spec) }
  const from = JSON.stringify(spec.startsWith('node:') ? spec : `node:${spec}`)
  if (!hasClause) return { start, end: s.end!, text: `await import(${from});` }
  const parts: string[] = []
  const ns = `__codeact_${spec.replace(/\W/g, '_')}`
  for (const e of s.specifiers) if (e.type === 'ImportDefaultSpecifier') parts.push(`const ${e.local.name} = ${ns}.default;`)
  for (const e of s.specifiers) if (e.type === 'ImportNamespaceSpecifier') parts.push(`const ${e.local.name} = ${ns};`)
  const named = s.specifiers.flatMap((e) => {
    if (e.type !== 'ImportSpecifier' || e.importKind === 'type') return []
    const imported = e.imported
    const same = imported.start === e.local.start
    return [same ? e.local.name : `${text.slice(imported.start!, imported.end!)}: ${e.local.name}`]
  })
  if (named.length) parts.push(`const { ${named.join(', ')} } = ${ns};`)
  return { start, end: s.end!, text: `const ${ns} = await import(${from}); ${parts.join(' ')}` }
}

/** `import {} from 'x'` has a clause (TypeScript's empty NamedImports); `import 'x'` has none. */
function hasBraces(text: string, start: number, sourceStart: number): boolean {
  for (let at = skipTrivia(text, start + 6); at < sourceStart; at = skipTrivia(text, at + 1)) if (text[at] === '{') return true
  return false
}

function onlyProgramGlobals(s: ImportDeclaration): boolean {
  const name = s.specifiers.find((e) => e.type === 'ImportDefaultSpecifier')
  if (name && !PROGRAM_GLOBALS.includes(name.local.name)) return false
  const rest = s.specifiers.filter((e) => e.type !== 'ImportDefaultSpecifier')
  const ns = rest.find((e) => e.type === 'ImportNamespaceSpecifier')
  if (ns) return ns.local.name === 'tools'
  return rest.every((e) => e.type === 'ImportSpecifier' && (e.importKind === 'type' || PROGRAM_GLOBALS.includes(e.local.name)))
}

function importProblem(text: string, at: number, spec: string): ProgramProblem {
  const lc = lineAndColumn(text, at)
  const line = lc.line + 1
  return {
    message:
      `line ${line}: \`import\` is not available (from ${JSON.stringify(spec)}): the program is the body of an async function ` +
      'in a sandbox without modules. Remove the import; call tools as `await tools.name(args)` and use the built-ins (JSON, Math, Map, URL, …).',
    line,
    column: lc.character + 1,
  }
}

function lastExpressionEdit(text: string, statements: TopStatement[], exported: TopStatement | undefined): Edit | undefined {
  let i = statements.length - 1
  while (i >= 0 && isInert(statements[i]!)) i--
  const last = statements[i]
  if (!last) return undefined
  let expr: Expression
  if (last.kind === 'expression') expr = last.expression!
  else if (last === exported) expr = last.expression!
  else return undefined
  if (i === 0 && expr.type === 'StringLiteral' && last.kind === 'expression') return undefined
  if (!answersWith(expr)) return undefined
  const inner = text.slice(expr.start!, expr.end!)
  const call = last === exported && (expr.type === 'ArrowFunctionExpression' || expr.type === 'FunctionExpression') ? '()' : ''
  return { start: expr.start!, end: expr.end!, text: `return await (${inner})${call}` }
}

function answersWith(expr: Expression): boolean {
  let e: Node = expr
  while (e.type === 'ParenthesizedExpression') e = e.expression
  if (e.type === 'AssignmentExpression' || e.type === 'UpdateExpression') return false
  if (e.type === 'UnaryExpression' && (e.operator === 'delete' || e.operator === 'void')) return false
  if (e.type === 'CallExpression' || e.type === 'OptionalCallExpression') {
    const callee = e.callee
    if ((callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression') && !callee.computed) {
      const receiver = callee.object
      const isTools = receiver.type === 'Identifier' && receiver.name === 'tools'
      const name = callee.property.type === 'PrivateName' ? `#${callee.property.id.name}` : (callee.property as { name?: string }).name
      if (!isTools && name !== undefined && MUTATOR_METHODS.has(name)) return false
    }
  }
  return true
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  return out
}

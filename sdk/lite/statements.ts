/**
 * The top-level statements of a program as TypeScript's AST has them (sdk/program-text.ts walks
 * `file.statements`): Babel wraps an exported declaration in an Export…Declaration and keeps directives
 * apart; here every statement is one entry of TypeScript's kind, its `export`/`default` keywords found.
 */
import type { Directive, Expression, Node, Statement } from '@babel/types'

export type StatementKind =
  | 'function' // FunctionDeclaration (with or without a body)
  | 'class'
  | 'enum'
  | 'module'
  | 'interface'
  | 'type'
  | 'variable'
  | 'expression'
  | 'return'
  | 'empty'
  | 'import'
  | 'importEquals'
  | 'exportAssignment' // `export default <expression>`, `export = <expression>`
  | 'exportDeclaration' // `export { … }`, `export * from …`
  | 'other'

export interface TopStatement {
  kind: StatementKind
  /** The whole statement, `export` included. */
  start: number
  end: number
  /** The declaration or statement itself (inside an `export`). */
  node: Node
  /** The expression of an expression statement or of an export assignment. */
  expression?: Expression
  /** A directive of the prologue (`'use strict'`): an expression statement of a string literal to TypeScript. */
  directive?: boolean
  /** `export` keyword's start and the end of `export` or `export default` (declarations only). */
  exported?: { start: number; end: number; isDefault: boolean }
  declare: boolean
}

const DECLARATION_KINDS: Record<string, StatementKind> = {
  FunctionDeclaration: 'function',
  TSDeclareFunction: 'function',
  ClassDeclaration: 'class',
  TSEnumDeclaration: 'enum',
  TSModuleDeclaration: 'module',
  TSInterfaceDeclaration: 'interface',
  TSTypeAliasDeclaration: 'type',
  VariableDeclaration: 'variable',
  ExpressionStatement: 'expression',
  ReturnStatement: 'return',
  EmptyStatement: 'empty',
  ImportDeclaration: 'import',
  TSImportEqualsDeclaration: 'importEquals',
  TSExportAssignment: 'exportAssignment',
  ExportAllDeclaration: 'exportDeclaration',
}

/** What TypeScript parses as a declaration after `export default` (anything else is an export assignment). */
const DEFAULT_DECLARATIONS = new Set(['FunctionDeclaration', 'TSDeclareFunction', 'ClassDeclaration', 'TSInterfaceDeclaration'])

/** A program's statements: Babel's Program, or the wrapper function's body minus the wrapper's own directive (sdk/lite/one-parse.ts). */
export interface StatementList {
  directives: Directive[]
  body: Statement[]
}

export function topStatements(program: StatementList, text: string): TopStatement[] {
  const out: TopStatement[] = []
  for (const d of program.directives) {
    const literal = d.value
    out.push({
      kind: 'expression',
      start: d.start!,
      end: d.end!,
      node: d,
      expression: { type: 'StringLiteral', value: literal.value, start: literal.start, end: literal.end } as Expression,
      directive: true,
      declare: false,
    })
  }
  for (const s of program.body) out.push(topStatement(s, text))
  return out
}

function topStatement(s: Statement, text: string): TopStatement {
  const base = { start: s.start!, end: s.end!, declare: isDeclared(s) }
  if (s.type === 'ExportNamedDeclaration' || s.type === 'ExportDefaultDeclaration') {
    const d = s.declaration
    if (!d) return { ...base, kind: 'exportDeclaration', node: s }
    const isDefault = s.type === 'ExportDefaultDeclaration'
    const kind = isDefault && !DEFAULT_DECLARATIONS.has(d.type) ? undefined : DECLARATION_KINDS[d.type]
    if (kind === undefined) return { ...base, kind: 'exportAssignment', node: s, expression: d as Expression }
    const keyword = exportKeyword(text, s.start!, d)
    const end = isDefault ? skipTrivia(text, keyword + 6) + 7 : keyword + 6
    return { ...base, kind, node: d, declare: isDeclared(d), exported: { start: keyword, end, isDefault } }
  }
  if (s.type === 'TSExportAssignment') return { ...base, kind: 'exportAssignment', node: s, expression: s.expression }
  const kind = DECLARATION_KINDS[s.type] ?? 'other'
  return { ...base, kind, node: s, ...(s.type === 'ExpressionStatement' ? { expression: s.expression } : {}) }
}

function isDeclared(n: Node): boolean {
  return (n as { declare?: boolean }).declare === true
}

/** Where `export` is: the statement's start, or after its decorators (`@d export class …`). */
function exportKeyword(text: string, start: number, declaration: Node): number {
  if (text.startsWith('export', start)) return start
  const decorators = (declaration as { decorators?: Node[] }).decorators ?? []
  let at = skipTrivia(text, start)
  for (let d = decorators.find((x) => x.start === at); d; d = decorators.find((x) => x.start === at)) at = skipTrivia(text, d.end!)
  return text.startsWith('export', at) ? at : start
}

/** Skips white space, line breaks and comments. */
export function skipTrivia(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029)
      at++
    else if (c === 47 && text.charCodeAt(at + 1) === 47) {
      while (at < text.length && !/[\n\r\u2028\u2029]/.test(text[at]!)) at++
    } else if (c === 47 && text.charCodeAt(at + 1) === 42) {
      const close = text.indexOf('*/', at + 2)
      at = close === -1 ? text.length : close + 2
    } else if (c > 127 && /\s/.test(text[at]!)) at++
    else return at
  }
}

/** Statements that do nothing when reached: hoisted functions and type-only declarations. */
export function isInert(s: TopStatement): boolean {
  if (s.kind === 'function' || s.kind === 'interface' || s.kind === 'type' || s.kind === 'empty') return true
  if (s.kind === 'import' || s.kind === 'exportDeclaration') return true
  return s.declare
}

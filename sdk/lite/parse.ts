/**
 * The parser of the check-off path (sdk/lite/): @babel/parser with its TypeScript plugin, so a process that
 * never checks a program never loads TypeScript (≈ 9 MB of compiler, ≈ 50 MB and a few hundred ms in a
 * fresh thread). It reads the program as TypeScript's own parser does for sdk/program-text.ts: a script
 * whose top level may `await`, `return`, `import` and `export`; what TypeScript leaves to its checker
 * (strict-mode rules, redeclarations, misplaced `super` …) is not a syntax error here either.
 */
import type { ParseError, ParserOptions } from '@babel/parser'
import type { File, Node } from '@babel/types'
import { loadCached } from './parser-load.js'

/** Babel's parser, from its code cache when there is one (sdk/lite/parser-load.ts). */
const babel = loadCached<typeof import('@babel/parser')>('@babel/parser')

/** Exported for tests that must read a text exactly as this parser does (the host-prepare gate's lexing test). */
export const LITE_PARSER_OPTIONS: ParserOptions = {
  sourceType: 'script',
  // `<!--` and `-->` are operators to TypeScript (and in a module), not the comments of Annex B scripts.
  annexB: false,
  allowImportExportEverywhere: true,
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  allowNewTargetOutsideFunction: true,
  allowSuperOutsideMethod: true,
  allowUndeclaredExports: true,
  errorRecovery: true,
  createParenthesizedExpressions: true,
  attachComment: false,
  plugins: [
    'typescript',
    'decorators',
    'decoratorAutoAccessors',
    'explicitResourceManagement',
    'deferredImportEvaluation',
    ['optionalChainingAssign', { version: '2023-07' }],
  ],
}

/**
 * Babel's recoverable errors that TypeScript's parser does not report (its checker or binder does): the
 * text still parses, so the normaliser rewrites it as TypeScript's would. Found by the differential test.
 */
const CHECKER_ERRORS = new Set<string>([
  'AbstractMethodHasImplementation',
  'AwaitNotInAsyncContext',
  'DeclarationMissingInitializer',
  'DuplicateConstructor',
  'DuplicateExport',
  'DuplicateProto',
  'DuplicateRegExpFlags',
  'IllegalBreakContinue',
  'ImportMetaOutsideModule',
  'InvalidPrivateFieldResolution',
  'LabelRedeclaration',
  'LetInLexicalBinding',
  'ModuleExportUndefined',
  'OverrideNotInSubClass',
  'ParamDupe',
  'StrictDelete',
  'StrictEvalArguments',
  'StrictEvalArgumentsBinding',
  'StrictFunction',
  'StrictWith',
  'UnexpectedReservedWord',
  'PatternIsOptional',
  'UnexpectedParameterModifier',
  'UnexpectedUsingDeclaration',
  'VarRedeclaration',
  'YieldNotInGeneratorFunction',
])

/** Expressions TypeScript's parser does not take as an assignment's target (`x++ = 1` is "';' expected" to it). */
const NOT_LEFT_HAND_SIDE = new Set([
  'UnaryExpression',
  'UpdateExpression',
  'BinaryExpression',
  'LogicalExpression',
  'ConditionalExpression',
  'AssignmentExpression',
  'ArrowFunctionExpression',
  'YieldExpression',
  'AwaitExpression',
  'SequenceExpression',
  'TSAsExpression',
  'TSSatisfiesExpression',
  'TSTypeAssertion',
])

export interface LiteParse {
  file: File
  /** A syntax error as TypeScript's parser would report one (the normaliser then leaves the text alone). */
  syntaxError: boolean
}

/** Parses a program body (or a wrapped program); throws only past the parser's stack (a RangeError: the caller falls back to TypeScript). */
export function parseProgram(text: string): LiteParse {
  try {
    const file = babel.module.parse(text, LITE_PARSER_OPTIONS)
    babel.saveAfterUse()
    const errors = (file.errors ?? []) as ParseError[]
    const invalidTarget = errors.some((e) => e.reasonCode === 'InvalidLhs') && hasNonTarget(file)
    const rejected = errors.some((e) => !CHECKER_ERRORS.has(e.reasonCode) && e.reasonCode !== 'InvalidLhs')
    return { file, syntaxError: rejected || invalidTarget || hasLegacyOctal(text, file) }
  } catch (e) {
    if (e instanceof RangeError) throw e
    return { file: undefined as unknown as File, syntaxError: true }
  }
}

/** `x++ = 1`, `a as T = 1`: an assignment whose target TypeScript's parser does not read as one. */
function hasNonTarget(file: File): boolean {
  let found = false
  walk(file, (node) => {
    if (found) return false
    if (node.type === 'AssignmentExpression' && NOT_LEFT_HAND_SIDE.has(node.left.type)) found = true
    return !found
  })
  return found
}

/**
 * TypeScript's scanner rejects legacy octal and leading-zero numbers (`010`, `08`) and octal escapes in
 * strings (`'\1'`, `'\08'`, `'\8'`) in any mode; Babel only in strict code, and this parse is sloppy.
 */
function hasLegacyOctal(text: string, file: File): boolean {
  if (!/(?<![\w.$])0\d|\\[0-9]/.test(text)) return false
  let found = false
  walk(file, (node) => {
    if (found) return false
    const raw = (node as { extra?: { raw?: unknown } }).extra?.raw
    if (typeof raw !== 'string') return true
    if (node.type === 'NumericLiteral' && /^0\d/.test(raw)) found = true
    else if ((node.type === 'StringLiteral' || node.type === 'DirectiveLiteral') && octalEscape(raw)) found = true
    return !found
  })
  return found
}

function octalEscape(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') continue
    const c = raw[i + 1] ?? ''
    if ((c >= '1' && c <= '9') || (c === '0' && /\d/.test(raw[i + 2] ?? ''))) return true
    i++
  }
  return false
}

/** The 1-based line and 0-based column of an offset, counting line breaks as TypeScript does (\n, \r\n, \r, U+2028, U+2029). */
export function lineAndColumn(text: string, pos: number): { line: number; character: number } {
  let line = 0
  let start = 0
  for (let i = 0; i < pos && i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 13 && text.charCodeAt(i + 1) === 10) continue
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      line++
      start = i + 1
    }
  }
  return { line, character: pos - start }
}

/** Calls `visit` on every node below `root` (not `root` itself); `visit` returns false to skip a node's children. */
export function walk(root: Node, visit: (node: Node) => boolean): void {
  const stack: Node[] = []
  const push = (value: unknown): void => {
    if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) push(value[i])
    else if (isNode(value)) stack.push(value)
  }
  pushChildren(root, push)
  while (stack.length > 0) {
    const node = stack.pop()!
    if (visit(node) !== false) pushChildren(node, push)
  }
}

const SKIPPED_KEYS = new Set(['loc', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'errors', 'comments', 'tokens'])

function pushChildren(node: Node, push: (value: unknown) => void): void {
  const keys = Object.keys(node)
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!
    if (!SKIPPED_KEYS.has(key)) push((node as unknown as Record<string, unknown>)[key])
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

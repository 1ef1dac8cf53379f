/**
 * Where a bracket goes wrong, in the user's own text: TypeScript reports a missing `}` where the program ends
 * (past its last line, inside our wrapper) and points at the wrapper's `{`; a model needs the line of the
 * `{` that is never closed, or of the `}` that closes nothing. The scanner skips strings, comments,
 * template literals and regular expressions, so only real brackets count.
 */
import type TS from 'typescript'
import { ts } from './ts-host.js'

export interface BracketProblem {
  /** 1-based, in the user's text. */
  line: number
  column: number
  message: string
}

const K = ts.SyntaxKind
const OPEN: Partial<Record<TS.SyntaxKind, string>> = { [K.OpenBraceToken]: '{', [K.OpenParenToken]: '(', [K.OpenBracketToken]: '[' }
const CLOSE: Partial<Record<TS.SyntaxKind, string>> = { [K.CloseBraceToken]: '}', [K.CloseParenToken]: ')', [K.CloseBracketToken]: ']' }
const PAIR: Record<string, string> = { '{': '}', '(': ')', '[': ']' }

/** Tokens after which a `/` divides; anywhere else it starts a regular expression. */
const ENDS_EXPRESSION = new Set([
  ...[K.Identifier, K.NumericLiteral, K.StringLiteral, K.BigIntLiteral, K.NoSubstitutionTemplateLiteral, K.TemplateTail],
  ...[K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.PlusPlusToken, K.MinusMinusToken],
  ...[K.ThisKeyword, K.SuperKeyword, K.TrueKeyword, K.FalseKeyword, K.NullKeyword],
])

/** The first bracket that does not pair up, or undefined when they all do. */
export function unbalancedBracket(source: string): BracketProblem | undefined {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2023, true, ts.LanguageVariant.Standard, source)
  const stack: { char: string; pos: number; template: boolean }[] = []
  let previous = ts.SyntaxKind.Unknown
  const at = (pos: number) => {
    const lc = ts.getLineAndCharacterOfPosition(ts.createSourceFile('x.ts', source, ts.ScriptTarget.ES2023), pos)
    return { line: lc.line + 1, column: lc.character + 1 }
  }
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_EXPRESSION.has(previous))
      kind = scanner.reScanSlashToken()
    if (kind === ts.SyntaxKind.TemplateHead) stack.push({ char: '{', pos: scanner.getTokenStart(), template: true })
    else if (kind === ts.SyntaxKind.CloseBraceToken && stack.at(-1)?.template) {
      kind = scanner.reScanTemplateToken(false)
      if (kind === ts.SyntaxKind.TemplateTail) stack.pop()
    } else if (OPEN[kind] !== undefined) stack.push({ char: OPEN[kind] ?? '', pos: scanner.getTokenStart(), template: false })
    else if (CLOSE[kind] !== undefined) {
      const top = stack.pop()
      const closer = CLOSE[kind] ?? ''
      if (top === undefined)
        return {
          ...at(scanner.getTokenStart()),
          message: `This '${closer}' closes nothing: remove it, or add the '${opener(closer)}' it was meant to close.`,
        }
      if (PAIR[top.char] !== closer) {
        const open = at(top.pos)
        return {
          ...at(scanner.getTokenStart()),
          message: `This '${closer}' does not match the '${top.char}' on line ${open.line}: close that with '${PAIR[top.char] ?? ''}' first.`,
        }
      }
    }
    if (
      kind !== ts.SyntaxKind.SingleLineCommentTrivia &&
      kind !== ts.SyntaxKind.MultiLineCommentTrivia &&
      kind !== ts.SyntaxKind.WhitespaceTrivia &&
      kind !== ts.SyntaxKind.NewLineTrivia
    )
      previous = kind
  }
  const open = stack.pop()
  if (open === undefined) return undefined
  return {
    ...at(open.pos),
    message: `This '${open.char}' is never closed: add the missing '${PAIR[open.char] ?? ''}' where its block ends.`,
  }
}

/** The bracket a closing one closes. */
export function opener(closer: string): string {
  return closer === '}' ? '{' : closer === ')' ? '(' : '['
}

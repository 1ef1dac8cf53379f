/**
 * What every part of the blocking rule shares: its verdicts, its context, and the reading of tool references
 * in a program's syntax (`tools.x(…)`, `tools["x"]`, the tool a value came from).
 */
import type TS from 'typescript'
import type { RuleId } from './rule-table.js'
import { toolRef } from './typecheck-hints.js'
import { ts } from './ts-host.js'

export type Verdict =
  | { kind: 'block'; rule: RuleId; message?: string }
  | { kind: 'note'; rule: RuleId; cause: string; message: string }
  | { kind: 'drop'; rule: RuleId }

export interface RuleContext {
  checker: TS.TypeChecker
  file: TS.SourceFile
  toolNames: readonly string[]
}

/** One note per untyped value, whatever it is used for: names the tool it came from when it can. */
export function untypedNote(node: TS.Node, ctx: RuleContext): Verdict {
  const root = rootIdentifier(node)
  const name = root?.getText(ctx.file) ?? node.getText(ctx.file).slice(0, 40)
  const tool = root ? toolOfDeclaration(root, ctx) : toolOfText(node.getText(ctx.file))
  if (tool !== undefined)
    return {
      kind: 'note',
      rule: 'untyped',
      cause: `untyped:${tool}`,
      message: `the result of ${toolRef(tool)} has no declared type, so its uses were not checked`,
    }
  return {
    kind: 'note',
    rule: 'untyped',
    cause: `untyped:${name}`,
    message: `\`${name}\` has no declared type, so its uses were not checked`,
  }
}

export function rootIdentifier(node: TS.Node): TS.Identifier | undefined {
  let n: TS.Node = node
  for (;;) {
    if (ts.isIdentifier(n)) return n
    if (
      ts.isPropertyAccessExpression(n) ||
      ts.isElementAccessExpression(n) ||
      ts.isNonNullExpression(n) ||
      ts.isParenthesizedExpression(n) ||
      ts.isAsExpression(n)
    )
      n = n.expression
    else if (ts.isCallExpression(n)) n = n.expression
    else return undefined
  }
}

/** `r` in `const r = await tools.get_user(...)`: the tool's name. */
export function toolOfDeclaration(id: TS.Identifier, ctx: RuleContext): string | undefined {
  const symbol = ctx.checker.getSymbolAtLocation(id)
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0]
  let init: TS.Node | undefined
  if (declaration && ts.isVariableDeclaration(declaration)) init = declaration.initializer
  else if (declaration && ts.isBindingElement(declaration)) init = ancestor(declaration, ts.isVariableDeclaration)?.initializer
  return init === undefined ? undefined : toolOfText(init.getText(ctx.file))
}

/** The first tool an expression's text calls. */
export function toolOfText(text: string): string | undefined {
  const match = /tools\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*["'`]([^"'`]+)["'`]\s*\])/.exec(text)
  return match?.[1] ?? match?.[2]
}

/** The tool whose argument list holds `node` (`tools.x(…)` / `tools["x"](…)`), if any. */
export function toolCallAround(node: TS.Node, ctx: RuleContext): string | undefined {
  for (let n: TS.Node | undefined = node; n; n = n.parent) {
    if (n === node && ts.isCallExpression(n)) {
      const name = toolNameOfCallee(n.expression)
      if (name !== undefined && ctx.toolNames.includes(name)) return name
    }
    const parent: TS.Node | undefined = n.parent
    if (parent && ts.isCallExpression(parent) && parent.arguments.some((a) => a === n)) {
      const name = toolNameOfCallee(parent.expression)
      if (name !== undefined && ctx.toolNames.includes(name)) return name
    }
    if (parent && ts.isCallExpression(parent) && parent.expression === n) {
      const name = toolNameOfCallee(n)
      if (name !== undefined && ctx.toolNames.includes(name)) return name
    }
    if (ts.isFunctionLike(n) || ts.isBlock(n)) return undefined
  }
  return undefined
}

export function toolNameOfCallee(callee: TS.Node): string | undefined {
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'tools')
    return callee.name.text
  if (
    ts.isElementAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'tools' &&
    ts.isStringLiteralLike(callee.argumentExpression)
  )
    return callee.argumentExpression.text
  return undefined
}

export function isToolsAccess(node: TS.Node, ctx: RuleContext): boolean {
  for (let n: TS.Node | undefined = node; n && n !== ctx.file; n = n.parent) {
    if (
      (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) &&
      ts.isIdentifier(n.expression) &&
      n.expression.text === 'tools'
    )
      return true
    if (ts.isStatement(n)) return false
  }
  return false
}

export function ancestor<T extends TS.Node>(node: TS.Node, test: (n: TS.Node) => n is T): T | undefined {
  for (let n: TS.Node | undefined = node.parent; n; n = n.parent) if (test(n)) return n
  return undefined
}

/** The deepest node that covers [start, start + length). */
export function nodeAt(file: TS.SourceFile, start: number, length: number): TS.Node {
  let node: TS.Node = file
  for (;;) {
    const child: TS.Node | undefined = node.getChildren(file).find((c) => c.getStart(file) <= start && start + length <= c.end)
    if (child === undefined) return node
    node = child
  }
}

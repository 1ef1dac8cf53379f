/**
 * The blocking rule for fields and lists: a property a type does not have (read, called, destructured,
 * written) and a value iterated that is not a list. Blocks what is certain from a closed type (a typed tool
 * result, type-shapes.ts): `o.totl_cents / 100` is NaN, not an answer; notes the program's own objects.
 */
import type TS from 'typescript'
import { closestNames } from './suggest.js'
import { isClosed, isLoose, isPromiseLike, lacksEverywhere, listProperties } from './type-shapes.js'
import { ancestor, rootIdentifier, toolOfDeclaration, toolOfText, untypedNote, type RuleContext, type Verdict } from './rule-context.js'
import { awaitHint, missingFieldHint, notIterableHint } from './typecheck-hints.js'
import { ts } from './ts-host.js'

/** `x.name` (or `const { name } = x`) where `name` is not in x's type. */
export function propertyVerdict(node: TS.Node, ctx: RuleContext, message: string, code: number): Verdict {
  const access = node.parent
  const object = access && (ts.isPropertyAccessExpression(access) || ts.isElementAccessExpression(access)) ? access.expression : undefined
  if (object === undefined) return destructuredVerdict(node, ctx, message)
  if (isToolsMember(access)) return { kind: 'block', rule: 'unknown-tool' }
  const type = ctx.checker.getTypeAtLocation(object)
  if (isPromiseLike(type)) return { kind: 'block', rule: 'promise-used', message: `${message} ${awaitHint()}` }
  if (isLoose(type)) {
    // Writing a property on `{}` (`const s = {}; s.total = 1`) is plain JavaScript.
    if (isWriteTarget(access)) return { kind: 'drop', rule: 'untyped-write' }
    return untypedNote(object, ctx)
  }
  if (isWriteTarget(access)) return { kind: 'note', rule: 'property-write', cause: `2339:${message}`, message }
  // Calling a method that is not there is a TypeError, and so is reading through a property that is not
  // there (`data.rows.map`, `r.totl.length`).
  if (usedAsObject(access)) return { kind: 'block', rule: 'through-missing' }
  const name = ts.isPropertyAccessExpression(access) ? access.name.text : node.getText(ctx.file).replace(/^["'`]|["'`]$/g, '')
  // A later lib's method (TS2550) may exist in the sandbox; a closed type's missing field certainly does not.
  if (code !== 2550 && isClosed(type, ctx.checker) && lacksEverywhere(type, name, ctx.checker))
    return { kind: 'block', rule: 'closed-property', message: fieldMessage(object, name, type, ctx) }
  return { kind: 'note', rule: 'own-property', cause: `2339:${message}`, message }
}

/** `const { orders } = tools.list_orders(…)` (a Promise) or `const { order } = r` (a field r lacks). */
function destructuredVerdict(node: TS.Node, ctx: RuleContext, message: string): Verdict {
  const element = ancestor(node, ts.isBindingElement)
  const pattern = element?.parent
  if (element === undefined || pattern === undefined || !ts.isObjectBindingPattern(pattern))
    return { kind: 'note', rule: 'own-property', cause: `2339:${message}`, message }
  const source = patternSource(pattern)
  const type = source ? ctx.checker.getTypeAtLocation(source) : ctx.checker.getTypeAtLocation(pattern)
  if (isLoose(type)) return untypedNote(source ?? pattern, ctx)
  const name = (element.propertyName ?? element.name).getText(ctx.file)
  if (isPromiseLike(type))
    return { kind: 'block', rule: 'promise-destructured', message: `\`{ ${name} }\` is destructured from a Promise: ${awaitHint()}` }
  if (isClosed(type, ctx.checker) && lacksEverywhere(type, name, ctx.checker))
    return { kind: 'block', rule: 'closed-property', message: fieldMessage(source ?? pattern, name, type, ctx, `{ ${name} }`) }
  return { kind: 'note', rule: 'own-property', cause: `2339:${message}`, message }
}

/** The expression a top-level pattern destructures (`= init`, or the array a `for (const {…} of xs)` walks). */
function patternSource(pattern: TS.ObjectBindingPattern): TS.Expression | undefined {
  const declaration = pattern.parent
  if (ts.isVariableDeclaration(declaration)) return declaration.initializer
  return undefined
}

/** `for (const o of r)` / `const [a, b] = r` where r is not a list. */
export function iterateVerdict(node: TS.Node, ctx: RuleContext, message: string): Verdict {
  const declaration = ts.isArrayBindingPattern(node) && ts.isVariableDeclaration(node.parent) ? node.parent : undefined
  const value = declaration?.initializer ?? node
  const type = ctx.checker.getTypeAtLocation(value)
  if (isLoose(type)) return untypedNote(value, ctx)
  if (isPromiseLike(type)) return { kind: 'block', rule: 'promise-destructured', message: `${message} ${awaitHint()}` }
  if (isClosed(type, ctx.checker)) {
    const lists = type.isUnion() ? [] : listProperties(type, ctx.checker)
    return { kind: 'block', rule: 'not-iterable', message: notIterableHint(value.getText(ctx.file).slice(0, 40), lists) }
  }
  return { kind: 'note', rule: 'maybe-iterable', cause: `iterable:${message}`, message }
}

/** "`o` has no field `totl_cents` (tools.get_order's result has …): did you mean `total_cents`?" */
function fieldMessage(object: TS.Node, name: string, type: TS.Type, ctx: RuleContext, label?: string): string {
  const root = rootIdentifier(object)
  const tool = root ? toolOfDeclaration(root, ctx) : toolOfText(object.getText(ctx.file))
  const apparent = ctx.checker.getApparentType(ctx.checker.getNonNullableType(type))
  const own = type.flags & ts.TypeFlags.Object || type.isUnion() ? namesOf(type, ctx.checker) : []
  const all = apparent.getProperties().map((p) => p.getName())
  const candidates = own.length > 0 ? own : all
  // `o.id` for `order_id`: too far apart by edits, one word apart by meaning.
  const word = candidates.filter(
    (c) => c.toLowerCase().endsWith(`_${name.toLowerCase()}`) || c.toLowerCase().startsWith(`${name.toLowerCase()}_`),
  )
  const close = [...new Set([...closestNames(name, candidates), ...word])].slice(0, 3)
  return missingFieldHint(label ?? object.getText(ctx.file).slice(0, 40), name, ctx.checker.typeToString(type), own, close, tool)
}

function namesOf(type: TS.Type, checker: TS.TypeChecker): string[] {
  const members = type.isUnion() ? type.types : [type]
  const names = new Set<string>()
  for (const m of members) if (m.flags & ts.TypeFlags.Object) for (const p of checker.getPropertiesOfType(m)) names.add(p.getName())
  return [...names]
}

/** `tools.nope` / `tools["nope"]` itself. */
function isToolsMember(access: TS.Node): boolean {
  return (
    (ts.isPropertyAccessExpression(access) || ts.isElementAccessExpression(access)) &&
    ts.isIdentifier(access.expression) &&
    access.expression.text === 'tools'
  )
}

/** `access(…)`, `access.x` or `access[i]`, none of them optional: an undefined `access` certainly throws. */
function usedAsObject(access: TS.Node): boolean {
  const use = access.parent
  if (!use) return false
  if (ts.isCallExpression(use)) return use.expression === access && use.questionDotToken === undefined
  if (ts.isPropertyAccessExpression(use) || ts.isElementAccessExpression(use))
    return use.expression === access && use.questionDotToken === undefined
  return false
}

/** `access = value` or `delete access`: a write, which works on any object. */
function isWriteTarget(access: TS.Node): boolean {
  const parent = access.parent
  if (parent !== undefined && ts.isDeleteExpression(parent)) return true
  return (
    parent !== undefined &&
    ts.isBinaryExpression(parent) &&
    parent.left === access &&
    parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  )
}

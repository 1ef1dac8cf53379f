/**
 * Which diagnostics stop a run: the blocking rule. Every verdict names a row of the rule's table
 * (rule-table.ts, shown in docs/type-checking.md).
 *
 * A diagnostic BLOCKS only when the program would certainly go wrong at run time: syntax; a name that does
 * not exist in a value position; an unknown tool; a Promise used or destructured as its value (a forgotten
 * `await`); a tool argument no value of its type could make valid; a field read from a closed typed value
 * that does not declare it (typecheck-rule-property.ts); `JSON.parse` of an object; `for…of` over a typed
 * object; a tool passed as a callback; calling what is certainly not a function; assigning a `const`.
 * Everything else strict TypeScript says is about JavaScript that may work, and becomes a NOTE (at most one
 * line per cause, after the result) or is DROPPED: `unknown` results used any way at all, possibly-undefined
 * values, widened values a tool validates when called, the program's own annotations, the implicit-`any`
 * family (7xxx, there only because evolving `[]`/`null` types need `noImplicitAny`).
 * The decision looks at the code and at the types of the expressions at the diagnostic's span.
 */
import type TS from 'typescript'
import { isLoose, isPlainObject, isPromiseLike, acceptsPromise } from './type-shapes.js'
import { nodeAt, toolCallAround, toolNameOfCallee, isToolsAccess, untypedNote, type RuleContext, type Verdict } from './rule-context.js'
import { iterateVerdict, propertyVerdict } from './typecheck-rule-property.js'
import { awaitHint, callbackHint, jsonParseHint, toolRef } from './typecheck-hints.js'
import { ts } from './ts-host.js'

export type { RuleContext, Verdict } from './rule-context.js'
export { nodeAt } from './rule-context.js'

/** Codes of the "types say X, values may still be fine" mismatch family. */
const MISMATCH = new Set([2322, 2345, 2739, 2740, 2741, 2559, 2353, 2561, 2820, 2769, 2375, 2379])
/** Codes that are certain failures whatever the types: assigning a const, redeclaring, `await` in a plain function. */
const ALWAYS_BLOCK = new Set([2588, 2451, 2300, 1308, 2630, 2632, 2540])
const CANNOT_FIND_NAME = new Set([2304, 2552, 2580, 2591, 2584, 2582, 2593, 2662, 2663])
const POSSIBLY_UNDEFINED = new Set([18047, 18048, 18049, 2531, 2532, 2533, 2722, 2454])
const UNKNOWN_VALUE = new Set([18046, 2571])
/** "not iterable" / "not an array type" in `for…of` and array destructuring. */
const NOT_ITERABLE = new Set([2488, 2495, 2461, 2548, 2549])
const VALUE_CODES = new Set([2349, 2351, 2362, 2363, 2365, 2801, 2554, 2555, ...MISMATCH])

export function classify(d: TS.Diagnostic, ctx: RuleContext): Verdict {
  if (d.start === undefined || ALWAYS_BLOCK.has(d.code)) return { kind: 'block', rule: 'always' }
  // Syntax: parse diagnostics are all below 2000 (grammar errors the checker reports too).
  if (d.code < 2000) return { kind: 'block', rule: 'syntax' }
  const node = nodeAt(ctx.file, d.start, d.length ?? 0)
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  const first = text.split('\n')[0] ?? text

  if (CANNOT_FIND_NAME.has(d.code)) {
    // A missing type is erased by the compiler; only a missing value is a ReferenceError.
    if (inTypePosition(node))
      return {
        kind: 'note',
        rule: 'missing-type',
        cause: `type:${node.getText(ctx.file)}`,
        message: `${first} (types are not checked at run time; it was treated as any)`,
      }
    return { kind: 'block', rule: 'missing-name' }
  }
  if (d.code === 7053 && isToolsAccess(node, ctx)) return { kind: 'block', rule: 'unknown-tool' }
  if (d.code >= 7000 && d.code < 8000) return { kind: 'drop', rule: 'implicit-any' }

  if (d.code === 2339 || d.code === 2551 || d.code === 2550) return propertyVerdict(node, ctx, first, d.code)
  if (NOT_ITERABLE.has(d.code)) return iterateVerdict(node, ctx, first)
  if (UNKNOWN_VALUE.has(d.code)) return untypedNote(node, ctx)
  if (POSSIBLY_UNDEFINED.has(d.code)) {
    const name = node.getText(ctx.file).slice(0, 40)
    return { kind: 'note', rule: 'possibly-undefined', cause: `undefined:${name}`, message: `\`${name}\` may be null or undefined here` }
  }
  if (VALUE_CODES.has(d.code)) return valueVerdict(d, node, ctx, first)
  return { kind: 'note', rule: 'other', cause: `${d.code}:${first}`, message: first }
}

/** Mismatches, calls, operators: blocking when a Promise is involved or a tool argument is certainly wrong. */
function valueVerdict(d: TS.Diagnostic, node: TS.Node, ctx: RuleContext, message: string): Verdict {
  const { checker } = ctx
  const pair = sourceAndTarget(node, checker)
  const here = pair?.source ?? (ts.isExpression(node) ? checker.getTypeAtLocation(node) : undefined)
  if (here !== undefined && isPromiseLike(here) && !(pair?.target && acceptsPromise(pair.target)))
    return { kind: 'block', rule: 'promise-used', message: `${message} ${awaitHint()}` }
  const passed = argumentVerdict(d, node, ctx)
  if (passed !== undefined) return passed
  const call = toolCallAround(node, ctx)
  if (d.code === 2349 || d.code === 2351)
    return here !== undefined && isLoose(here) ? untypedNote(node, ctx) : { kind: 'block', rule: 'not-callable' }
  if (d.code === 2554 || d.code === 2555) {
    // Too few arguments to a tool (it needs fields) fails validation; extra arguments are ignored.
    const tooFew = /Expected (at least )?(\d+)[^,]*, but got (\d+)/.exec(message)
    if (call && tooFew && Number(tooFew[3]) < Number(tooFew[2])) return { kind: 'block', rule: 'too-few-arguments' }
    return { kind: 'note', rule: 'own-annotation', cause: `${d.code}:${message}`, message }
  }
  if (call === undefined) {
    if (pair && isLoose(pair.source)) return untypedNote(sourceNode(node) ?? node, ctx)
    return {
      kind: 'note',
      rule: 'own-annotation',
      cause: `${d.code}:${message}`,
      message: `${message} (an annotation of the program's own; not checked at run time)`,
    }
  }
  // An excess field in a literal: the schema is closed (else the type would have an index signature).
  if (d.code === 2353 || d.code === 2561 || pair === undefined) return { kind: 'block', rule: 'tool-argument' }
  if (!mayBeValid(pair.source, pair.target, checker, 0))
    return { kind: 'block', rule: 'tool-argument', ...enumMessage(node, pair.source, pair.target, ctx) }
  const what = sourceNode(node)?.getText(ctx.file).slice(0, 40) ?? 'a value'
  if (isLoose(pair.source)) return untypedNote(sourceNode(node) ?? node, ctx)
  return {
    kind: 'note',
    rule: 'widened-argument',
    cause: `widened:${call}:${what}`,
    message: `\`${what}\` is typed ${checker.typeToString(pair.source)} where ${toolRef(call)} expects ${short(pair.target ? checker.typeToString(pair.target) : 'another type')}; the tool validates the actual value when called`,
  }
}

/**
 * A value passed to an ordinary function that certainly fails there: a tool as a callback
 * (`ids.map(tools.get_order)`), or an object to `JSON.parse`.
 */
function argumentVerdict(d: TS.Diagnostic, node: TS.Node, ctx: RuleContext): Verdict | undefined {
  if (d.code !== 2345 && d.code !== 2769) return undefined
  const arg = passedArgument(node)
  if (arg === undefined) return undefined
  const tool = toolNameOfCallee(arg.value)
  if (tool !== undefined && ctx.toolNames.includes(tool)) {
    const callee = arg.call.expression.getText(ctx.file)
    return { kind: 'block', rule: 'tool-callback', message: callbackHint(callee, tool, onlyField(arg.value, ctx)) }
  }
  const callee = arg.call.expression
  const isJsonParse =
    ts.isPropertyAccessExpression(callee) && callee.expression.getText(ctx.file) === 'JSON' && callee.name.text === 'parse'
  if (isJsonParse && arg.call.arguments[0] === arg.value && isPlainObject(ctx.checker.getTypeAtLocation(arg.value), ctx.checker))
    return { kind: 'block', rule: 'json-parse-object', message: jsonParseHint(arg.value.getText(ctx.file).slice(0, 40)) }
  return undefined
}

/** The argument a diagnostic's node is (or is inside of, through parentheses), with its call. */
function passedArgument(node: TS.Node): { call: TS.CallExpression; value: TS.Expression } | undefined {
  let n: TS.Node = node
  while (n.parent && ts.isParenthesizedExpression(n.parent)) n = n.parent
  const parent = n.parent
  if (parent && ts.isCallExpression(parent) && ts.isExpression(n) && parent.arguments.includes(n)) return { call: parent, value: n }
  // TS2769 may span the whole call: its first tool-reference argument.
  if (ts.isCallExpression(node)) {
    const value = node.arguments.find((a) => toolNameOfCallee(a) !== undefined)
    return value ? { call: node, value } : undefined
  }
  return undefined
}

/** The field a tool's argument object needs when it needs exactly one, or its first required one. */
function onlyField(toolRefNode: TS.Expression, ctx: RuleContext): string | undefined {
  const [signature] = ctx.checker.getTypeAtLocation(toolRefNode).getCallSignatures()
  const param = signature?.getParameters()[0]
  if (param === undefined) return undefined
  const type = ctx.checker.getNonNullableType(ctx.checker.getTypeOfSymbol(param))
  const props = type.getProperties()
  const required = props.filter((p) => (p.flags & ts.SymbolFlags.Optional) === 0)
  return (required[0] ?? props[0])?.getName()
}

/** The expression whose value is being checked against an expected type, and that type. */
function sourceAndTarget(node: TS.Node, checker: TS.TypeChecker): { source: TS.Type; target: TS.Type | undefined } | undefined {
  const value = sourceNode(node)
  if (value === undefined) return undefined
  const parent = node.parent
  let target: TS.Type | undefined
  if (parent && ts.isVariableDeclaration(parent) && parent.name === node && parent.type) target = checker.getTypeAtLocation(parent.type)
  else if (ts.isExpression(value)) target = checker.getContextualType(value)
  return { source: checker.getTypeAtLocation(value), target }
}

/** The value expression a diagnostic at `node` is about. */
function sourceNode(node: TS.Node): TS.Node | undefined {
  const parent = node.parent
  if (parent === undefined) return undefined
  if (ts.isPropertyAssignment(parent) && parent.name === node) return parent.initializer
  if (ts.isShorthandPropertyAssignment(parent) && parent.name === node) return node
  if (ts.isVariableDeclaration(parent) && parent.name === node) return parent.initializer
  if (ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.right
  if (ts.isExpression(node)) return node
  return undefined
}

/**
 * Could some run-time value of type `source` be a valid `target`? True for anything untyped, for a widened
 * primitive against literals of its kind, and structurally for objects and arrays; false only when every
 * value the type allows is certainly rejected.
 */
function mayBeValid(source: TS.Type, target: TS.Type | undefined, checker: TS.TypeChecker, depth: number): boolean {
  if (target === undefined || depth > 6) return true
  if (isLoose(source) || isLoose(target)) return true
  if (source.isUnion()) return source.types.some((s) => mayBeValid(s, target, checker, depth + 1))
  if (target.isUnion()) return target.types.some((t) => mayBeValid(source, t, checker, depth + 1))
  if (checker.isTypeAssignableTo(source, target)) return true
  const F = ts.TypeFlags
  // `string` may hold "US"; the literal "us" may not.
  if (source.flags & F.String && target.flags & (F.StringLiteral | F.TemplateLiteral)) return true
  if (source.flags & F.Number && target.flags & F.NumberLiteral) return true
  if (source.flags & F.Boolean && target.flags & F.BooleanLiteral) return true
  if (isPromiseLike(source)) return false
  if (checker.isArrayType(source) && checker.isArrayType(target)) {
    const [s] = checker.getTypeArguments(source as TS.TypeReference)
    const [t] = checker.getTypeArguments(target as TS.TypeReference)
    return s === undefined || t === undefined || mayBeValid(s, t, checker, depth + 1)
  }
  if (checker.isTupleType(source) || checker.isTupleType(target)) return true // rare; not worth being wrong
  const objectish = (t: TS.Type) => (t.flags & F.Object) !== 0 && !checker.isArrayType(t)
  if (objectish(source) && objectish(target)) {
    if (source.getCallSignatures().length > 0) return false
    for (const prop of target.getProperties()) {
      const wanted = checker.getTypeOfSymbol(prop)
      const own = source.getProperty(prop.getName())
      const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0
      if (own === undefined) {
        if (optional || checker.getIndexInfosOfType(source).length > 0) continue
        return false
      }
      if (!mayBeValid(checker.getTypeOfSymbol(own), wanted, checker, depth + 1)) return false
    }
    return true
  }
  return false
}

/** A literal outside an enum: "`status` must be one of "open", "paid" (enum); it is "closed"". */
function enumMessage(node: TS.Node, source: TS.Type, target: TS.Type | undefined, ctx: RuleContext): { message?: string } {
  if (target === undefined || !source.isLiteral() || !ts.isIdentifier(node)) return {}
  const members = (target.isUnion() ? target.types : [target]).filter((t) => !(t.flags & ts.TypeFlags.Undefined))
  if (members.length === 0 || !members.every((t) => t.isLiteral())) return {}
  const allowed = members.map((t) => ctx.checker.typeToString(t))
  return { message: `\`${node.text}\` must be one of ${allowed.join(', ')} (enum); it is ${ctx.checker.typeToString(source)}.` }
}

function inTypePosition(node: TS.Node): boolean {
  for (let n: TS.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return true
    if (ts.isExpressionWithTypeArguments(n))
      return n.parent !== undefined && ts.isHeritageClause(n.parent) && n.parent.token === ts.SyntaxKind.ImplementsKeyword
    if (ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return true
    if (ts.isExpression(n) || ts.isStatement(n)) return false
  }
  return false
}

function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

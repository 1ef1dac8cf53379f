/**
 * Which diagnostics stop a run: the blocking rule.
 *
 * A diagnostic BLOCKS only when the program would certainly go wrong at run time:
 *   - syntax (the program cannot be compiled at all);
 *   - a name that does not exist in a value position (a ReferenceError), with a hint for the usual cases;
 *   - an unknown tool (`tools.nope`, `tools["nope"]`: the call is ENOSYS);
 *   - a Promise used as its value (a forgotten `await`): property access, call, arithmetic, assignment;
 *   - a tool-call argument that no value of its type could make valid: a missing required field, an excess
 *     field in a closed schema, a literal outside an enum, a string where an object is expected, too few
 *     arguments (the call is EINVAL, maybe after earlier calls already had their side effects);
 *   - reading through a property a typed value does not have (`data.rows.map(…)`, `r.totl.length`);
 *   - calling what is certainly not a function (`n.toFixedd()` on a typed value), assigning a `const`,
 *     declaring a name twice (a TypeError / SyntaxError).
 * Everything else strict TypeScript says is about JavaScript that works, and becomes a NOTE (at most one line
 * per cause, after the result) or is DROPPED:
 *   - `unknown` results (tools without an `output` schema) used any way at all;
 *   - possibly-undefined values, `{}` from an empty literal or a narrowed `unknown`;
 *   - widened values (`string` where a tool wants `"US" | "DE"`): run-time validation checks the actual value;
 *   - mismatches against the program's own annotations (types are erased: nothing checks them at run time);
 *   - the implicit-`any` family (7xxx), which only exists because evolving `[]`/`null` types need
 *     `noImplicitAny` on.
 * The decision looks at the code and at the types of the expressions at the diagnostic's span.
 */
import type TS from 'typescript'
import { ts } from './ts-host.js'

export type Verdict = { kind: 'block'; message?: string } | { kind: 'note'; cause: string; message: string } | { kind: 'drop' }

export interface RuleContext {
  checker: TS.TypeChecker
  file: TS.SourceFile
  toolNames: readonly string[]
}

/** Codes of the "types say X, values may still be fine" mismatch family. */
const MISMATCH = new Set([2322, 2345, 2739, 2740, 2741, 2559, 2353, 2561, 2820, 2769, 2375, 2379])
/** Codes that are certain failures whatever the types: assigning a const, redeclaring, `await` in a plain function. */
const ALWAYS_BLOCK = new Set([2588, 2451, 2300, 1308, 2630, 2632, 2540])
const CANNOT_FIND_NAME = new Set([2304, 2552, 2580, 2591, 2584, 2582, 2593, 2662, 2663])
const POSSIBLY_UNDEFINED = new Set([18047, 18048, 18049, 2531, 2532, 2533, 2722, 2454])
const UNKNOWN_VALUE = new Set([18046, 2571])

export function classify(d: TS.Diagnostic, ctx: RuleContext): Verdict {
  if (d.start === undefined) return { kind: 'block' }
  // Syntax: parse diagnostics are all below 2000 (grammar errors the checker reports too).
  if (d.code < 2000 && !ALWAYS_BLOCK.has(d.code)) return { kind: 'block' }
  if (ALWAYS_BLOCK.has(d.code)) return { kind: 'block' }
  const node = nodeAt(ctx.file, d.start, d.length ?? 0)
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  const first = text.split('\n')[0] ?? text

  if (CANNOT_FIND_NAME.has(d.code)) {
    // A missing type is erased by the compiler; only a missing value is a ReferenceError.
    if (inTypePosition(node))
      return {
        kind: 'note',
        cause: `type:${node.getText(ctx.file)}`,
        message: `${first} (types are not checked at run time; it was treated as any)`,
      }
    return { kind: 'block' }
  }
  if (d.code === 7053 && isToolsAccess(node, ctx)) return { kind: 'block' }
  if (d.code >= 7000 && d.code < 8000) return { kind: 'drop' }

  if (d.code === 2339 || d.code === 2551 || d.code === 2550) return propertyVerdict(node, ctx, first)
  if (UNKNOWN_VALUE.has(d.code)) return untypedNote(node, ctx)
  if (POSSIBLY_UNDEFINED.has(d.code)) {
    const name = node.getText(ctx.file).slice(0, 40)
    return { kind: 'note', cause: `undefined:${name}`, message: `\`${name}\` may be null or undefined here` }
  }
  if (
    d.code === 2349 ||
    d.code === 2351 ||
    d.code === 2362 ||
    d.code === 2363 ||
    d.code === 2365 ||
    d.code === 2801 ||
    d.code === 2769 ||
    MISMATCH.has(d.code) ||
    d.code === 2554 ||
    d.code === 2555
  ) {
    return valueVerdict(d, node, ctx, first)
  }
  return { kind: 'note', cause: `${d.code}:${first}`, message: first }
}

/** `x.name` where `name` is not in x's type. */
function propertyVerdict(node: TS.Node, ctx: RuleContext, message: string): Verdict {
  const access = node.parent
  const object = access && (ts.isPropertyAccessExpression(access) || ts.isElementAccessExpression(access)) ? access.expression : undefined
  if (object === undefined) {
    // A destructuring pattern: `const { rate } = r`.
    const pattern = ancestor(node, ts.isVariableDeclaration)
    if (pattern?.initializer && isLoose(ctx.checker.getTypeAtLocation(pattern.initializer))) return untypedNote(pattern.initializer, ctx)
    return { kind: 'note', cause: `2339:${message}`, message }
  }
  if (isToolsAccess(node, ctx)) return { kind: 'block' }
  const type = ctx.checker.getTypeAtLocation(object)
  if (isPromiseLike(type, ctx.checker)) return { kind: 'block' }
  if (isLoose(type)) {
    // Writing a property on `{}` (`const s = {}; s.total = 1`) is plain JavaScript.
    if (isWriteTarget(access)) return { kind: 'drop' }
    return untypedNote(object, ctx)
  }
  // Calling a method that is not there is a TypeError, and so is reading through a property that is not
  // there (`data.rows.map`, `r.totl.length`); reading a missing property alone is only undefined.
  if (usedAsObject(access)) return { kind: 'block' }
  return { kind: 'note', cause: `2339:${message}`, message }
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

/** Mismatches, calls, operators: blocking when a Promise is involved or a tool argument is certainly wrong. */
function valueVerdict(d: TS.Diagnostic, node: TS.Node, ctx: RuleContext, message: string): Verdict {
  const { checker } = ctx
  const pair = sourceAndTarget(node, checker)
  const here = pair?.source ?? (ts.isExpression(node) ? checker.getTypeAtLocation(node) : undefined)
  if (here !== undefined && isPromiseLike(here, checker) && !(pair?.target && acceptsPromise(pair.target, checker)))
    return { kind: 'block' }
  const call = toolCallAround(node, ctx)
  if (d.code === 2349 || d.code === 2351) return here !== undefined && isLoose(here) ? untypedNote(node, ctx) : { kind: 'block' }
  if (d.code === 2554 || d.code === 2555) {
    // Too few arguments to a tool (it needs fields) fails validation; extra arguments are ignored.
    const tooFew = /Expected (at least )?(\d+)[^,]*, but got (\d+)/.exec(message)
    if (call && tooFew && Number(tooFew[3]) < Number(tooFew[2])) return { kind: 'block' }
    return { kind: 'note', cause: `${d.code}:${message}`, message }
  }
  if (call === undefined) {
    if (pair && isLoose(pair.source)) return untypedNote(sourceNode(node) ?? node, ctx)
    return {
      kind: 'note',
      cause: `${d.code}:${message}`,
      message: `${message} (an annotation of the program's own; not checked at run time)`,
    }
  }
  // An excess field in a literal: the schema is closed (else the type would have an index signature).
  if (d.code === 2353 || d.code === 2561) return { kind: 'block' }
  if (pair === undefined) return { kind: 'block' }
  if (mayBeValid(pair.source, pair.target, checker, 0)) {
    const what = sourceNode(node)?.getText(ctx.file).slice(0, 40) ?? 'a value'
    if (isLoose(pair.source)) return untypedNote(sourceNode(node) ?? node, ctx)
    return {
      kind: 'note',
      cause: `widened:${call}:${what}`,
      message: `\`${what}\` is typed ${checker.typeToString(pair.source)} where ${toolRefOf(call)} expects ${short(pair.target ? checker.typeToString(pair.target) : 'another type')}; the tool validates the actual value when called`,
    }
  }
  return { kind: 'block' }
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
  if (isPromiseLike(source, checker)) return false
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

/** One note per untyped value, whatever it is used for: names the tool it came from when it can. */
function untypedNote(node: TS.Node, ctx: RuleContext): Verdict {
  const root = rootIdentifier(node)
  const name = root?.getText(ctx.file) ?? node.getText(ctx.file).slice(0, 40)
  const tool = root ? toolOfDeclaration(root, ctx) : toolOfText(node.getText(ctx.file))
  if (tool !== undefined)
    return {
      kind: 'note',
      cause: `untyped:${tool}`,
      message: `the result of ${toolRefOf(tool)} has no declared type, so its uses were not checked`,
    }
  return { kind: 'note', cause: `untyped:${name}`, message: `\`${name}\` has no declared type, so its uses were not checked` }
}

function rootIdentifier(node: TS.Node): TS.Identifier | undefined {
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
function toolOfDeclaration(id: TS.Identifier, ctx: RuleContext): string | undefined {
  const symbol = ctx.checker.getSymbolAtLocation(id)
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0]
  let init: TS.Node | undefined
  if (declaration && ts.isVariableDeclaration(declaration)) init = declaration.initializer
  else if (declaration && ts.isBindingElement(declaration)) init = ancestor(declaration, ts.isVariableDeclaration)?.initializer
  return init === undefined ? undefined : toolOfText(init.getText(ctx.file))
}

/** The first tool an expression's text calls. */
function toolOfText(text: string): string | undefined {
  const match = /tools\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*["'`]([^"'`]+)["'`]\s*\])/.exec(text)
  return match?.[1] ?? match?.[2]
}

/** The tool whose argument list holds `node` (`tools.x(…)` / `tools["x"](…)`), if any. */
function toolCallAround(node: TS.Node, ctx: RuleContext): string | undefined {
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

function toolNameOfCallee(callee: TS.Node): string | undefined {
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

function isToolsAccess(node: TS.Node, ctx: RuleContext): boolean {
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

/** unknown, any, `{}` (an empty literal or a narrowed unknown), or a union with one of them. */
function isLoose(type: TS.Type): boolean {
  const F = ts.TypeFlags
  if (type.flags & (F.Unknown | F.Any)) return true
  if (type.isUnion()) return type.types.some(isLoose)
  if (
    type.flags & F.Object &&
    type.getProperties().length === 0 &&
    type.getCallSignatures().length === 0 &&
    (type as TS.ObjectType).objectFlags & ts.ObjectFlags.Anonymous
  )
    return true
  return (type.flags & F.NonPrimitive) !== 0
}

function isPromiseLike(type: TS.Type, checker: TS.TypeChecker): boolean {
  if (type.isUnion()) return type.types.every((t) => isPromiseLike(t, checker))
  const name = type.getSymbol()?.getName()
  return name === 'Promise' || name === 'PromiseLike'
}

function acceptsPromise(target: TS.Type, checker: TS.TypeChecker): boolean {
  if (isLoose(target)) return true
  if (target.isUnion()) return target.types.some((t) => acceptsPromise(t, checker))
  return isPromiseLike(target, checker)
}

function isWriteTarget(access: TS.Node): boolean {
  const parent = access.parent
  return (
    parent !== undefined &&
    ts.isBinaryExpression(parent) &&
    parent.left === access &&
    parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  )
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

function ancestor<T extends TS.Node>(node: TS.Node, test: (n: TS.Node) => n is T): T | undefined {
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

function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

function toolRefOf(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`
}

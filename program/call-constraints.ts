/**
 * codeact's own checks of tool-call arguments, on the program text before anything runs: a literal (or a
 * const holding one) that breaks a constraint the SDK text shows blocks (`limit: 500` where the SDK says
 * `@maximum 50`), and a field an open schema does not declare is noted by name. The constraints are read from
 * the SDK text itself (a field's doc, or its family's legend above `interface Tools`): what the model was
 * shown is what is checked.
 */
import type TS from 'typescript'
import { parseConstraints, violation, type LiteralValue } from './constraint-tags.js'
import { toolNameOfCallee, type Verdict } from './rule-context.js'
import { toolRef } from './typecheck-hints.js'
import { SDK_FILE } from './type-shapes.js'
import { ts } from './ts-host.js'

/** A diagnostic of codeact's own, with the verdict it was found with. */
export interface Finding {
  start: number
  length: number
  message: string
  verdict: Verdict
}

/** Legend docs above `interface Tools`: family (`github__`, '' for all) → field → doc line. */
export type Legend = ReadonlyMap<string, ReadonlyMap<string, string>>

interface Walk {
  checker: TS.TypeChecker
  legend: Legend
  tool: string
  out: Finding[]
}

/** Every tool call's literal arguments after `from` (a session's declarations come first). */
export function checkToolCalls(
  file: TS.SourceFile,
  checker: TS.TypeChecker,
  toolNames: readonly string[],
  legend: Legend,
  from: number,
): Finding[] {
  const out: Finding[] = []
  const visit = (node: TS.Node): void => {
    if (node.end <= from) return
    if (ts.isCallExpression(node)) {
      const tool = toolNameOfCallee(node.expression)
      const arg = node.arguments[0] && skipParens(node.arguments[0])
      if (tool !== undefined && toolNames.includes(tool) && arg && ts.isObjectLiteralExpression(arg))
        checkObject(arg, '', { checker, legend, tool, out })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out
}

function checkObject(literal: TS.ObjectLiteralExpression, path: string, walk: Walk): void {
  const contextual = walk.checker.getContextualType(literal)
  if (contextual === undefined) return
  const target = walk.checker.getNonNullableType(contextual)
  for (const prop of literal.properties) {
    if (!ts.isPropertyAssignment(prop) && !ts.isShorthandPropertyAssignment(prop)) continue
    const name = ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name) ? prop.name.text : undefined
    if (name === undefined) continue
    const value = skipParens(ts.isPropertyAssignment(prop) ? prop.initializer : prop.name)
    const field = `${path}${name}`
    const declarations = sdkDeclarations(target, name)
    if (declarations.length === 0) undeclared(prop, field, target, walk)
    else checkValue(prop, literalValues(prop, value, walk.checker), field, declarations, walk)
    if (ts.isObjectLiteralExpression(value)) checkObject(value, `${field}.`, walk)
    if (ts.isArrayLiteralExpression(value))
      value.elements.forEach((e, i) => {
        const element = skipParens(e)
        if (ts.isObjectLiteralExpression(element)) checkObject(element, `${field}[${i}].`, walk)
      })
  }
}

/** Blocks when the value breaks the constraints of every declaration of the field (each branch of a union). */
function checkValue(prop: TS.Node, values: LiteralValue[] | undefined, field: string, declarations: TS.Declaration[], walk: Walk): void {
  if (values === undefined) return
  let first: string | undefined
  for (const declaration of declarations) {
    const constraints = parseConstraints(docOf(declaration, walk))
    if (constraints === undefined) return
    for (const v of values) {
      const broken = violation(field, v, constraints)
      if (broken === undefined) return
      first ??= broken
    }
  }
  if (first === undefined) return
  walk.out.push({
    start: prop.getStart(),
    length: prop.getWidth(),
    message: `${first}, which ${toolRef(walk.tool)} refuses (EINVAL).`,
    verdict: { kind: 'block', rule: 'constraint' },
  })
}

/** A field an open schema (an index signature) does not declare: allowed, but said by name. */
function undeclared(prop: TS.Node, field: string, target: TS.Type, walk: Walk): void {
  if (target.isUnion() || walk.checker.getIndexInfosOfType(target).length === 0) return
  const declared = target.getProperties().filter((p) => (p.declarations ?? []).some((d) => d.getSourceFile().fileName === SDK_FILE))
  if (declared.length === 0) return
  const names = declared.map((p) => `\`${p.getName()}\``).join(', ')
  const message = `\`${field}\` is not a declared parameter of ${toolRef(walk.tool)} (it declares ${names}); the schema lets it through, and the tool may ignore it`
  walk.out.push({
    start: prop.getStart(),
    length: prop.getWidth(),
    message,
    verdict: { kind: 'note', rule: 'undeclared-argument', cause: `undeclared:${walk.tool}:${field}`, message },
  })
}

/** The SDK's declarations of a field of the argument type (one per union branch that has it). */
function sdkDeclarations(target: TS.Type, name: string): TS.Declaration[] {
  const members = target.isUnion() ? target.types : [target]
  return members.flatMap((m) => (m.getProperty(name)?.declarations ?? []).filter((d) => d.getSourceFile().fileName === SDK_FILE))
}

/** A property's doc line: its own `/** … *\/`, else its family's legend line. */
function docOf(declaration: TS.Declaration, walk: Walk): string {
  const file = declaration.getSourceFile()
  // The trivia before the name: on the property's own line or inline after the `;` before it.
  const doc = /\/\*\*([\s\S]*?)\*\/\s*$/.exec(file.text.slice(declaration.pos, declaration.getStart(file)))
  if (doc !== null) return (doc[1] ?? '').trim()
  const name =
    ts
      .getNameOfDeclaration(declaration)
      ?.getText(file)
      .replace(/^["']|["']$/g, '') ?? ''
  const at = walk.tool.indexOf('__')
  const family = at > 0 ? walk.tool.slice(0, at + 2) : ''
  return walk.legend.get(family)?.get(name) ?? ''
}

/** The values an argument certainly has: its literal type(s), or an array literal's length; else undefined. */
function literalValues(prop: TS.ObjectLiteralElement, value: TS.Expression, checker: TS.TypeChecker): LiteralValue[] | undefined {
  if (ts.isArrayLiteralExpression(value)) {
    if (value.elements.some((e) => ts.isSpreadElement(e) || ts.isOmittedExpression(e))) return undefined
    const items = value.elements.map((e) => literalOf(checker.getTypeAtLocation(e)))
    const known = items.every((i) => i !== undefined && i.kind !== 'array')
    return [
      {
        kind: 'array',
        length: value.elements.length,
        ...(known ? { items: items.map((i) => (i as { value: string | number }).value) } : {}),
      },
    ]
  }
  // `{ limit }` with `const limit = 500`: the const's own (literal) type.
  const shorthand = ts.isShorthandPropertyAssignment(prop) ? checker.getShorthandAssignmentValueSymbol(prop) : undefined
  const type = shorthand ? checker.getTypeOfSymbolAtLocation(shorthand, prop) : checker.getTypeAtLocation(value)
  const members = type.isUnion() ? type.types : [type]
  const values = members.map(literalOf)
  return values.every((v) => v !== undefined) ? (values as LiteralValue[]) : undefined
}

function literalOf(type: TS.Type): LiteralValue | undefined {
  if (type.isNumberLiteral()) return { kind: 'number', value: type.value }
  if (type.isStringLiteral()) return { kind: 'string', value: type.value }
  return undefined
}

function skipParens(node: TS.Expression): TS.Expression {
  let n = node
  while (ts.isParenthesizedExpression(n)) n = n.expression
  return n
}

/** The legend lines of an SDK text (`// github__* tools:` then `//   field: doc`). */
export function parseLegend(sdkText: string): Legend {
  const legend = new Map<string, Map<string, string>>()
  let family: Map<string, string> | undefined
  for (const line of sdkText.split('\n')) {
    if (line.startsWith('interface Tools')) break
    const head = /^\/\/ (All tools|(\S+)\* tools):$/.exec(line)
    if (head) legend.set(head[2] ?? '', (family = new Map()))
    const entry = /^\/\/ {3}([^\s:]+): (.*)$/.exec(line)
    if (entry && family) family.set(entry[1] as string, entry[2] as string)
  }
  return legend
}

/**
 * What a type says about the values it stands for, as the blocking rule needs it: loose (anything may be
 * there at run time), a Promise, or closed — every value of it is known to lack a property it does not declare.
 *
 * Closed means: declared by the SDK (a typed tool result, or a part of one) with no index signature, or an
 * earlier session cell's binding of such a type (marked `/*sdk*\/` in the session's declarations), or a
 * primitive. The program's own object literals are never closed: `summary.total = 5` then `summary.total` is
 * JavaScript that works although strict TypeScript rejects both lines.
 */
import type TS from 'typescript'
import { ts } from './ts-host.js'

/** The SDK's file name in every checker (typecheck.ts). */
export const SDK_FILE = '/codeact/sdk.d.ts'
/** The comment a session's printed declaration carries when its type came from the SDK (session-types.ts). */
export const SDK_MARK = '/*sdk*/'

/** unknown, any, `{}` (an empty literal or a narrowed unknown), `object`, or a union with one of them. */
export function isLoose(type: TS.Type): boolean {
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

export function isPromiseLike(type: TS.Type): boolean {
  if (type.isUnion()) return type.types.every((t) => isPromiseLike(t))
  const name = type.getSymbol()?.getName()
  return name === 'Promise' || name === 'PromiseLike'
}

export function acceptsPromise(target: TS.Type): boolean {
  if (isLoose(target)) return true
  if (target.isUnion()) return target.types.some((t) => acceptsPromise(t))
  return isPromiseLike(target)
}

/** A declaration the SDK made: in the SDK file, or in a session declaration printed from an SDK type. */
export function declaredBySdk(declaration: TS.Node): boolean {
  const file = declaration.getSourceFile()
  if (file.fileName === SDK_FILE) return true
  for (let n: TS.Node | undefined = declaration; n && n !== file; n = n.parent)
    if (ts.isVariableStatement(n)) return n.getText(file).includes(`: ${SDK_MARK} `)
  return false
}

/**
 * Whether every value of `type` certainly lacks a property the type does not declare (see the head comment).
 * null and undefined in a union are skipped: using them is another diagnostic's business.
 */
export function isClosed(type: TS.Type, checker: TS.TypeChecker, depth = 0): boolean {
  const F = ts.TypeFlags
  if (depth > 8 || isLoose(type)) return false
  if (type.isUnion()) {
    const rest = type.types.filter((t) => !(t.flags & (F.Null | F.Undefined)))
    return rest.length > 0 && rest.every((t) => isClosed(t, checker, depth + 1))
  }
  if (type.flags & (F.StringLike | F.NumberLike | F.BooleanLike)) return true
  if (!(type.flags & F.Object) || type.getCallSignatures().length > 0) return false
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const elements = checker.getTypeArguments(type as TS.TypeReference)
    return elements.length > 0 && elements.every((e) => isClosed(e, checker, depth + 1))
  }
  if (checker.getIndexInfosOfType(type).length > 0) return false
  const props = type.getProperties()
  return props.length > 0 && props.every((p) => (p.declarations ?? []).length > 0 && (p.declarations ?? []).every(declaredBySdk))
}

/** Whether every value of `type` is a plain object (not an array, string, number, function): `JSON.parse` of it throws. */
export function isPlainObject(type: TS.Type, checker: TS.TypeChecker): boolean {
  if (isLoose(type)) return false
  if (type.isUnion()) return type.types.every((t) => isPlainObject(t, checker))
  if (!(type.flags & ts.TypeFlags.Object) || type.getCallSignatures().length > 0) return false
  if (checker.isArrayType(type) || checker.isTupleType(type)) return false
  // An object of its own with a toString may stringify to JSON text.
  return !type.getProperties().some((p) => p.getName() === 'toString') && checker.getIndexInfosOfType(type).length === 0
}

/** The names of a type's properties whose values are lists: what a `for…of` over the object likely meant. */
export function listProperties(type: TS.Type, checker: TS.TypeChecker): string[] {
  if (!(type.flags & ts.TypeFlags.Object)) return []
  return type
    .getProperties()
    .filter((p) => {
      const t = checker.getNonNullableType(checker.getTypeOfSymbol(p))
      return checker.isArrayType(t) || checker.isTupleType(t)
    })
    .map((p) => p.getName())
}

/** Whether no member of `type` has the property `name` (a union's other branch may: `r.reason` on ok | error). */
export function lacksEverywhere(type: TS.Type, name: string, checker: TS.TypeChecker): boolean {
  const members = type.isUnion() ? type.types : [type]
  return members.every((m) => m.getProperty(name) === undefined && checker.getApparentType(m).getProperty(name) === undefined)
}

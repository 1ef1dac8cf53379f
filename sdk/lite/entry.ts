/**
 * A program that only declares an entry point means "run it" (sdk/program-text.ts's loneEntryPoint, over
 * Babel's AST): the entry is the default export, a main-style name, or the only function; it is called only
 * when nothing at the top level refers to it already.
 */
import type { FunctionDeclaration, Node } from '@babel/types'
import { MAIN_NAMES } from '../program-rules.js'
import { walk } from './parse.js'
import { isInert, type TopStatement } from './statements.js'

/** `root`: the node whose subtree is the whole program (Babel's File, or the wrapper function's body). */
export function entryPoint(
  root: Node,
  statements: TopStatement[],
  defaultFunction: string | undefined,
  session: boolean,
): string | undefined {
  const declared = statements.filter((s) => s.kind === 'function' && s.node.type === 'FunctionDeclaration')
  const functions = declared.map((s) => s.node as FunctionDeclaration).filter((f) => f.id)
  const mains = functions.filter((f) => MAIN_NAMES.has(f.id!.name))
  const hasReturn = statements.some((s) => s.kind === 'return')
  let entry: FunctionDeclaration | undefined
  if (defaultFunction) {
    const anonymous = declared.some((s) => !(s.node as FunctionDeclaration).id)
    if (anonymous && defaultFunction === 'main' && !functions.some((f) => f.id!.name === 'main')) return hasReturn ? undefined : 'main'
    entry = functions.find((f) => f.id!.name === defaultFunction)
  } else if (mains.length === 1) entry = mains[0]
  else if (!session && functions.length === 1 && !statements.some(runsSomething)) entry = functions[0]
  if (!entry || (!defaultFunction && !entry.params.every(isOptionalParameter))) return undefined
  const name = entry.id!.name
  if (referencedOutside(root, entry, name)) return undefined
  if (hasReturn) return undefined
  return name
}

function isOptionalParameter(p: Node): boolean {
  return p.type === 'AssignmentPattern' || p.type === 'RestElement' || (p as { optional?: boolean }).optional === true
}

/** A top-level statement that does work when reached (anything but declarations without calls). */
function runsSomething(s: TopStatement): boolean {
  if (isInert(s) || s.kind === 'class' || s.kind === 'enum' || s.kind === 'module') return false
  if (s.kind === 'variable')
    return (s.node as { declarations: { init?: Node | null }[] }).declarations.some((d) => d.init != null && containsCallOrAwait(d.init))
  return true
}

const CALLS = new Set(['CallExpression', 'OptionalCallExpression', 'AwaitExpression', 'NewExpression', 'TaggedTemplateExpression'])
const FUNCTIONS = new Set([
  'FunctionExpression',
  'ArrowFunctionExpression',
  'FunctionDeclaration',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
  'TSDeclareMethod',
  'TSDeclareFunction',
])

function containsCallOrAwait(root: Node): boolean {
  if (CALLS.has(root.type)) return true
  if (FUNCTIONS.has(root.type)) return false
  let found = false
  walk(root, (node) => {
    if (found || FUNCTIONS.has(node.type)) return false
    if (CALLS.has(node.type)) found = true
    return !found
  })
  return found
}

/** Any identifier spelled `name` outside the declaration (TypeScript's Identifier nodes, type parameters included). */
function referencedOutside(root: Node, decl: Node, name: string): boolean {
  let found = false
  walk(root, (node) => {
    if (found || node === decl || node.type === 'PrivateName') return false
    if (node.type === 'Identifier' && node.name === name) found = true
    else if (node.type === 'TSTypeParameter') {
      const n = (node as { name: unknown }).name
      if ((typeof n === 'string' ? n : (n as { name?: string }).name) === name) found = true
    }
    return !found
  })
  return found
}

/**
 * oxc's gate on Babel's parse tree, for the check-off path that never loads TypeScript (sdk/program-fast.ts
 * says why there is a gate; sdk/program-fast-ts.ts is the same gate on TypeScript's tree). Same exclusions:
 * any syntax error (recovered ones included), decorators, namespaces and modules, `accessor` members,
 * imports and exports, `using` declarations, and a tree deeper than MAX_FAST_DEPTH nodes. The walk is
 * iterative (its own stack on the heap) and stops at the first node past the depth, so it cannot overflow.
 */
import type { Node } from '@babel/types'
import { fastCandidate, MAX_FAST_DEPTH, oxcCompile } from '../program-fast.js'
import type { LiteParse } from './parse.js'

/** Babel's node types oxc is not trusted with here (esbuild compiles them). */
const NOT_PLAIN = new Set([
  'Decorator',
  'TSModuleDeclaration',
  'ClassAccessorProperty',
  'ImportDeclaration',
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'ExportAllDeclaration',
  'TSImportEqualsDeclaration',
  'TSExportAssignment',
  'TSNamespaceExportDeclaration',
])

const SKIPPED_KEYS = new Set(['loc', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'errors', 'comments', 'tokens'])

/**
 * `wrapped` compiled by oxc, or undefined for esbuild. `parsed`: Babel's parse of `wrapped` (the source's
 * shape proof, sdk/lite/shape.ts).
 */
export function fastCompileLite(wrapped: string, parsed: LiteParse): { code: string; map: string } | undefined {
  if (!fastCandidate(wrapped) || !plainLite(parsed)) return undefined
  return oxcCompile(wrapped)
}

/** No syntax error, none of NOT_PLAIN, no `using`, no deeper than MAX_FAST_DEPTH nodes below the file. */
export function plainLite(parsed: LiteParse): boolean {
  const { file, syntaxError } = parsed
  if (syntaxError || file === undefined || ((file as { errors?: unknown[] }).errors?.length ?? 0) > 0) return false
  const nodes: Node[] = [file]
  const depths: number[] = [0]
  const push = (value: unknown, depth: number): void => {
    if (isNode(value)) {
      nodes.push(value)
      depths.push(depth)
    }
  }
  while (nodes.length > 0) {
    const node = nodes.pop()!
    const depth = depths.pop()!
    if (depth > MAX_FAST_DEPTH || NOT_PLAIN.has(node.type)) return false
    if (node.type === 'VariableDeclaration' && (node.kind === 'using' || node.kind === 'await using')) return false
    for (const key of Object.keys(node)) {
      if (SKIPPED_KEYS.has(key)) continue
      const value = (node as unknown as Record<string, unknown>)[key]
      if (Array.isArray(value)) for (const item of value) push(item, depth + 1)
      else push(value, depth + 1)
    }
  }
  return true
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

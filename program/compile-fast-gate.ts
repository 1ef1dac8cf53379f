/**
 * oxc's gate on TypeScript's parse tree (program/compile-fast.ts says why there is a gate): the checker's
 * thread compiles every program through it, the check on or off.
 */
import type TS from 'typescript'
import { fastCandidate, MAX_FAST_DEPTH, oxcCompile } from './compile-fast.js'
import { ts } from './ts-host.js'

/**
 * `wrapped` (the wrapped program text) compiled by oxc, with its source map; undefined when it must go to
 * esbuild. `file`: TypeScript's parse of `wrapped` (the source's shape proof).
 */
export function fastCompile(wrapped: string, file: TS.SourceFile): { code: string; map: string } | undefined {
  if (!fastCandidate(wrapped)) return undefined
  if (file.text !== wrapped || parseErrors(file) > 0 || !plain(file, 0)) return undefined
  return oxcCompile(wrapped)
}

/** TypeScript's own syntax errors in the parse (not part of its public types). */
function parseErrors(file: TS.SourceFile): number {
  return (file as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics?.length ?? 1
}

/** No syntax oxc would compile differently or not lower for es2022, and no deeper than MAX_FAST_DEPTH. */
function plain(node: TS.Node, depth: number): boolean {
  if (depth > MAX_FAST_DEPTH) return false
  if (ts.isDecorator(node) || ts.isModuleDeclaration(node) || node.kind === ts.SyntaxKind.AccessorKeyword) return false
  if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node) || ts.isExportDeclaration(node)) return false
  if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Using) !== 0) return false
  return !ts.forEachChild(node, (child) => (plain(child, depth + 1) ? undefined : true))
}

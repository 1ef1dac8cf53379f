/**
 * TypeScript program body -> the JS expression every sandbox runs:
 *   (async function () { 'use strict'; <body> })
 * The wrapper is program/normalise.ts's, the same text the type checker checks. The program is the body of
 * an async function, so top-level `await` and `return` work; `tools`, `ToolCallError` and `console` are
 * the sandbox's globals. esbuild compiles it (full TypeScript: enums, classes, parameter properties …); its
 * source map takes runtime positions back to the user's lines.
 *
 * Compiling, with the wrapper's shape proved on the source and on the compiled JS, is program/compile.ts's.
 * The runtime's runs compile in the checker's thread, in the same request that normalises the program
 * (runtime/typecheck.ts: `PreparedProgram.compiled`), and the host only turns the answer into a
 * CompiledProgram here (compiledProgram); the host never loads TypeScript nor parses a program.
 * `compile()` by itself parses where its `shapes` say (default: in this thread, loading TypeScript).
 * A shape check that did not finish (past its budget) fails closed: an unproven wrapper never runs.
 */
import type { Message } from 'esbuild'
import type { TraceMap } from '@jridgewell/trace-mapping'
import { traceMapping } from '../sdk/lazy-module.js'
import { type CompiledText, compileBody, type ProgramShapes } from '../program/compile.js'
import { type ShapeResult, WRAP_LINE_OFFSET } from '../program/wrap.js'
import type { RunError } from '../vocabulary/types.js'

export type { CompiledText, ProgramShapes, ShapeAnswer } from '../program/compile.js'

export interface CompiledProgram {
  js: string
  /** Maps a 1-based line/0-based column in `js` to the user's 1-based line and column. */
  mapPosition(line: number, column: number): { line: number; column: number } | undefined
}

export type CompileOutcome = { ok: true; program: CompiledProgram } | { ok: false; error: RunError }

export interface CompileOptions {
  /** Where the program is parsed (default: in this thread, loading TypeScript on first use). */
  shapes?: ProgramShapes
  /** The shape of `wrapProgram(source).text`, already proved (the checker's thread does it while normalising). */
  sourceShape?: ShapeResult
}

/** Parsing in this thread: for compile() used by itself. */
const localShapes: ProgramShapes = {
  checkShape: async (text, language) => (await import('../program/shape.js')).checkWrappedShape(text, language),
  namespaceSpans: async (source) => (await import('../program/shape.js')).topLevelNamespaceSpans(source),
}

export async function compile(source: string, options: CompileOptions = {}): Promise<CompileOutcome> {
  return compiledProgram(await compileBody(source, options.shapes ?? localShapes, options.sourceShape), source)
}

/** What compiling `source` answered (here or in the checker's thread), as a run uses it. */
export function compiledProgram(result: CompiledText, source: string): CompileOutcome {
  if (!result.ok && result.shape) {
    const { message, line, column } = result.shape
    return { ok: false, error: { kind: 'compile', message, line, column } }
  }
  if (!result.ok) return { ok: false, error: compileError(result.messages, source) }
  // Decoded on the first position asked for (an error's stack, a logged Error): most runs never ask.
  let map: TraceMap | undefined
  const text = result.map
  const js = result.code.trimEnd().replace(/;$/, '')
  return {
    ok: true,
    program: {
      js,
      mapPosition(line, column) {
        const { TraceMap: Reader, originalPositionFor } = traceMapping()
        map ??= new Reader(text)
        const pos = originalPositionFor(map, { line, column })
        if (pos.line === null || pos.line <= WRAP_LINE_OFFSET) return undefined
        return { line: pos.line - WRAP_LINE_OFFSET, column: (pos.column ?? 0) + 1 }
      },
    },
  }
}

function compileError(messages: Message[], source: string): RunError {
  const lines = source.split('\n')
  const shown = messages.slice(0, 3).map((m) => {
    const loc = m.location
    if (!loc) return m.text
    const line = Math.max(1, loc.line - WRAP_LINE_OFFSET)
    const text = lines[line - 1]
    return `line ${line}:${loc.column + 1} ${m.text}${text === undefined ? '' : `\n  ${line} | ${text.trim().slice(0, 200)}`}`
  })
  if (messages.length > 3) shown.push(`…and ${messages.length - 3} more`)
  const firstLoc = messages[0]?.location
  return {
    kind: 'compile',
    message: shown.join('\n'),
    ...(firstLoc ? { line: Math.max(1, firstLoc.line - WRAP_LINE_OFFSET), column: firstLoc.column + 1 } : {}),
  }
}

/** Find the first `program.js:LINE:COL` frame in a guest stack and map it to the user's source. */
export function locateInSource(program: CompiledProgram, stack: string | undefined): { line: number; column: number } | undefined {
  if (!stack) return undefined
  const re = /program\.js:(\d+):(\d+)/g
  for (const m of stack.matchAll(re)) {
    const pos = program.mapPosition(Number(m[1]), Math.max(0, Number(m[2]) - 1))
    if (pos) return pos
  }
  return undefined
}

const RUNTIME_FRAME =
  /codeact-prelude\.js|codeact-glue\.js|\(prelude\.js|at prelude\.js|node:internal|<isolated-vm>|at new Promise \(<anonymous>\)/
const PROGRAM_POSITION = /program\.js:(\d+):(\d+)/g

/**
 * A stack as the user should read it: `program.js` positions become their own lines (`program.ts:L:C`)
 * and the runtime's frames (prelude, glue, the sandbox's internals) are dropped. Text without frames is
 * returned as it is.
 */
export function userStack(program: CompiledProgram, text: string): string {
  if (!text.includes('\n    at ')) return text
  const out: string[] = []
  for (const line of text.split('\n')) {
    if (!/^\s+at /.test(line)) {
      out.push(line)
      continue
    }
    if (RUNTIME_FRAME.test(line)) continue
    out.push(
      line.replace(PROGRAM_POSITION, (whole, l: string, c: string) => {
        const pos = program.mapPosition(Number(l), Math.max(0, Number(c) - 1))
        return pos ? `program.ts:${pos.line}:${pos.column}` : whole
      }),
    )
  }
  return out.join('\n')
}

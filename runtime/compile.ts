/**
 * TypeScript program body -> the JS expression every sandbox runs:
 *   (async function () { 'use strict'; <body> })
 * The wrapper is sdk/program-text.ts's, the same text the type checker checks. The program is the body of
 * an async function, so top-level `await` and `return` work; `tools`, `ToolCallError` and `console` are
 * the sandbox's globals. esbuild compiles it (full TypeScript: enums, classes, parameter properties …); its
 * source map takes runtime positions back to the user's lines.
 *
 * Before anything runs, the wrapped source and the compiled JS are both parsed and proved to be exactly one
 * function expression (checkWrappedShape): a body that closes the function early (`}); evil(); (…`) would
 * otherwise run top-level code when the sandbox evaluates the script, before the prelude has locked it down.
 * The parsing is a `ProgramShapes`'s: the runtime's runs it in the checker's thread (runtime/typecheck.ts),
 * so the host never parses a program nor loads TypeScript; by itself `compile()` parses in this thread.
 * A shape check that did not finish (past its budget) fails closed: an unproven wrapper never runs.
 */
import { transform, type Message } from 'esbuild'
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping'
import { type ProgramProblem, type ShapeResult, wrapProgram, WRAP_LINE_OFFSET } from '../sdk/program-wrap.js'
import type { RunError } from '../vocabulary/types.js'

export interface CompiledProgram {
  js: string
  /** Maps a 1-based line/0-based column in `js` to the user's 1-based line and column. */
  mapPosition(line: number, column: number): { line: number; column: number } | undefined
}

export type CompileOutcome = { ok: true; program: CompiledProgram } | { ok: false; error: RunError }

/** A shape check's answer; `unfinished`: it could not be completed (past its budget), so nothing is proven. */
export type ShapeAnswer = ShapeResult | { ok: false; problem: ProgramProblem; unfinished: true }

/** The parsing compile() needs, wherever it runs (the runtime's: in the checker's thread). */
export interface ProgramShapes {
  /** sdk/program-text.ts's checkWrappedShape. */
  checkShape(text: string, language: 'ts' | 'js'): Promise<ShapeAnswer>
  /** sdk/program-text.ts's topLevelNamespaceSpans; undefined if it could not be found out. */
  namespaceSpans(source: string): Promise<{ start: number; end: number }[] | undefined>
}

export interface CompileOptions {
  /** Where the program is parsed (default: in this thread, loading TypeScript on first use). */
  shapes?: ProgramShapes
  /** The shape of `wrapProgram(source).text`, already proved (the checker's thread does it while normalising). */
  sourceShape?: ShapeResult
}

/** Parsing in this thread: for compile() used by itself. */
const localShapes: ProgramShapes = {
  checkShape: async (text, language) => (await import('../sdk/program-shape.js')).checkWrappedShape(text, language),
  namespaceSpans: async (source) => (await import('../sdk/program-shape.js')).topLevelNamespaceSpans(source),
}

export async function compile(source: string, options: CompileOptions = {}): Promise<CompileOutcome> {
  const shapes = options.shapes ?? localShapes
  const first = await transformWrapped(source, shapes, options.sourceShape)
  if (first.ok || !first.messages || !mentionsNamespace(first.messages)) return finish(first, source)
  // esbuild allows `namespace` only at a module's top level, and the program is a function body:
  // compile each top-level namespace on its own and splice the JS back in place.
  const spliced = await compileNamespacesInPlace(source, shapes)
  if (spliced === undefined) return finish(first, source)
  return finish(await transformWrapped(spliced, shapes), source)
}

type TransformResult =
  | { ok: true; code: string; map: string }
  | { ok: false; messages: Message[]; shape?: undefined }
  | { ok: false; shape: { message: string; line: number; column: number }; messages?: undefined }

async function transformWrapped(source: string, shapes: ProgramShapes, knownShape?: ShapeResult): Promise<TransformResult> {
  const wrapped = wrapProgram(source).text
  let out: { code: string; map: string }
  try {
    out = await transform(wrapped, {
      loader: 'ts',
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: 'program.ts',
      tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, experimentalDecorators: false } },
    })
  } catch (e) {
    const messages = (e as { errors?: Message[] }).errors
    return { ok: false, messages: messages ?? [{ text: String(e) } as Message] }
  }
  // The source as TypeScript reads it, and the output as the sandbox's JS parser will: each must be the
  // one wrapper function. Both, because the danger is exactly a text two parsers read differently.
  // A source too deep for TypeScript's parser (esbuild folds what it can) is judged by its output alone.
  const sourceShape: ShapeAnswer = knownShape ?? (await shapes.checkShape(wrapped, 'ts'))
  if (!sourceShape.ok && ('unfinished' in sourceShape || !/nested too deeply/.test(sourceShape.problem.message)))
    return { ok: false, shape: sourceShape.problem }
  const output = await shapes.checkShape(out.code, 'js')
  if (!output.ok && 'unfinished' in output) return { ok: false, shape: output.problem }
  if (!output.ok)
    return {
      ok: false,
      shape: {
        ...output.problem,
        message: 'the program does not compile to one function (its text closes the wrapper early); check its braces',
      },
    }
  return { ok: true, code: out.code, map: out.map }
}

function finish(result: TransformResult, source: string): CompileOutcome {
  if (!result.ok && result.shape) return { ok: false, error: { kind: 'compile', ...result.shape } }
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
        map ??= new TraceMap(text)
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

function mentionsNamespace(messages: Message[]): boolean {
  return messages.some((m) => m.location?.lineText.match(/\b(namespace|module)\s+[A-Za-z_$]/))
}

/** Replace each top-level `namespace X { … }` with its compiled JS, keeping the line count where possible. */
async function compileNamespacesInPlace(source: string, shapes: ProgramShapes): Promise<string | undefined> {
  const spans = await shapes.namespaceSpans(source)
  if (spans === undefined || spans.length === 0) return undefined
  let out = source
  for (const span of spans.reverse()) {
    const text = source.slice(span.start, span.end)
    try {
      const js = (await transform(text, { loader: 'ts', format: 'esm', target: 'es2022' })).code.trimEnd()
      const pad = Math.max(0, text.split('\n').length - js.split('\n').length)
      out = out.slice(0, span.start) + js + '\n'.repeat(pad) + out.slice(span.end)
    } catch {
      return undefined
    }
  }
  return out
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

/**
 * A normalised program body -> esbuild's JS of its wrapped text, with the wrapper's shape proved on both
 * sides (runtime/compile.ts turns the answer into a CompiledProgram). It runs where the parsing is: in the
 * checker's thread, right after normalising, so preparing and compiling a program is one thread request
 * (the thread runs esbuild's service itself); runtime/compile.ts runs it on the host's side only for
 * compile() used by itself.
 *
 * Before anything runs, the wrapped source and the compiled JS are both parsed and proved to be exactly one
 * function expression (checkWrappedShape): a body that closes the function early (`}); evil(); (…`) would
 * otherwise run top-level code when the sandbox evaluates the script, before the prelude has locked it down.
 * Both, because the danger is exactly a text two parsers read differently.
 */
import type { Message } from 'esbuild'
import { type ProgramProblem, type ShapeResult, WRAP_LINE_OFFSET, wrapProgram } from './wrap.js'

/** A shape check's answer; `unfinished`: it could not be completed (past its budget), so nothing is proven. */
export type ShapeAnswer = ShapeResult | { ok: false; problem: ProgramProblem; unfinished: true }

/** The parsing compiling needs (program/shape.ts's, in this thread or another one). */
export interface ProgramShapes {
  /** program/shape.ts's checkWrappedShape. */
  checkShape(text: string, language: 'ts' | 'js'): ShapeAnswer | Promise<ShapeAnswer>
  /** program/shape.ts's topLevelNamespaceSpans; undefined if it could not be found out. */
  namespaceSpans(source: string): { start: number; end: number }[] | undefined | Promise<{ start: number; end: number }[] | undefined>
}

/**
 * A compiler in this thread for the programs it is sure of (program/compile-fast.ts): the wrapped text's JS and
 * source map, or undefined for esbuild to compile. Its output is proved like esbuild's; if the proof fails,
 * esbuild compiles the program and its answer stands.
 */
export type FastCompiler = (wrapped: string) => { code: string; map: string } | undefined

/** Wraps each wait on esbuild's service (the checker's thread: a long wait is not the thread's work, see typecheck-worker.ts). */
export type EsbuildWait = <T>(answer: Promise<T>) => Promise<T>

const direct: EsbuildWait = (answer) => answer

/**
 * esbuild's module, loaded on the first program it compiles: oxc compiles most programs in the checker's
 * thread, and a host that only turns answers into runs (runtime/compile.ts) never needs it.
 */
const esbuild = () => import('esbuild')

/** What compiling answered (plain data: it crosses the thread boundary). */
export type CompiledText =
  | { ok: true; code: string; map: string; by: 'oxc' | 'esbuild' }
  | { ok: false; messages: Message[]; shape?: undefined }
  | { ok: false; shape: ProgramProblem; messages?: undefined }

const OPTIONS = {
  loader: 'ts',
  target: 'es2022',
  sourcemap: 'external',
  sourcefile: 'program.ts',
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, experimentalDecorators: false } },
} as const

/**
 * Compiles `source` (a normalised body) wrapped; `knownShape`: the wrapped source's shape, already proved
 * (the thread does it while normalising); `fast`: tried first when that shape is proved. Never throws for
 * anything a program contains.
 */
export async function compileBody(
  source: string,
  shapes: ProgramShapes,
  knownShape?: ShapeResult,
  fast?: FastCompiler,
  wait: EsbuildWait = direct,
): Promise<CompiledText> {
  return (await compileFast(source, shapes, knownShape, fast)) ?? compileSlow(source, shapes, knownShape, wait)
}

/** compileBody's first way: `fast` (oxc) for a source whose shape is proved, its output proved; undefined: esbuild's turn (compileSlow). */
export async function compileFast(
  source: string,
  shapes: ProgramShapes,
  knownShape?: ShapeResult,
  fast?: FastCompiler,
): Promise<CompiledText | undefined> {
  if (!fast || !knownShape?.ok) return undefined
  const wrapped = wrapProgram(source).text
  const out = fast(wrapped)
  const proved = out && (await proveShapes(wrapped, out, shapes, knownShape))
  return proved?.ok ? { ...proved, by: 'oxc' } : undefined
}

/** compileBody's second way: esbuild's service, its output proved; a top-level namespace compiled on its own and spliced in. */
export async function compileSlow(
  source: string,
  shapes: ProgramShapes,
  knownShape?: ShapeResult,
  wait: EsbuildWait = direct,
): Promise<CompiledText> {
  const first = await compileWrapped(source, shapes, wait, knownShape)
  if (first.ok || !first.messages || !mentionsNamespace(first.messages)) return first
  // esbuild allows `namespace` only at a module's top level, and the program is a function body:
  // compile each top-level namespace on its own and splice the JS back in place.
  const spliced = await compileNamespacesInPlace(source, shapes, wait)
  if (spliced === undefined) return first
  return compileWrapped(spliced, shapes, wait)
}

async function compileWrapped(source: string, shapes: ProgramShapes, wait: EsbuildWait, knownShape?: ShapeResult): Promise<CompiledText> {
  const wrapped = wrapProgram(source).text
  let out: { code: string; map: string }
  try {
    const { transform } = await esbuild()
    out = await wait(transform(wrapped, OPTIONS))
  } catch (e) {
    const messages = (e as { errors?: Message[] }).errors
    return { ok: false, messages: messages ? plainMessages(messages) : [{ text: String(e) } as Message] }
  }
  return proveShapes(wrapped, out, shapes, knownShape)
}

/**
 * The source as TypeScript reads it, and the output as the sandbox's JS parser will: each must be the one
 * wrapper function. A source too deep for TypeScript's parser (esbuild folds what it can) is judged by its
 * output alone.
 */
async function proveShapes(
  wrapped: string,
  out: { code: string; map: string },
  shapes: ProgramShapes,
  knownShape?: ShapeResult,
): Promise<CompiledText> {
  const sourceShape: ShapeAnswer = knownShape ?? (await shapes.checkShape(wrapped, 'ts'))
  if (!sourceShape.ok && ('unfinished' in sourceShape || !/nested too deeply/.test(sourceShape.problem.message)))
    return { ok: false, shape: sourceShape.problem }
  const output = await shapes.checkShape(out.code, 'js')
  if (!output.ok && 'unfinished' in output) return { ok: false, shape: output.problem }
  if (!output.ok && output.problem.syntax !== undefined)
    return { ok: false, shape: await syntaxProblem(output.problem, output.problem.syntax, out.map) }
  if (!output.ok)
    return {
      ok: false,
      shape: {
        ...output.problem,
        message: 'the program does not compile to one function (its text closes the wrapper early); check its braces',
      },
    }
  return { ok: true, code: out.code, map: out.map, by: 'esbuild' }
}

/**
 * Compiled output the sandbox's parser rejects — a syntax error the compiler let through (it does not check
 * a regular expression's pattern: `/(/`) — said as one, at the user's line (the output's position mapped
 * back), not as a wrapper broken out of.
 */
async function syntaxProblem(problem: ProgramProblem, why: string, map: string): Promise<ProgramProblem> {
  // Loaded here, where it is needed: a rare failure, and this layer stands below sdk/lazy-module.ts.
  const { originalPositionFor, TraceMap } = await import('@jridgewell/trace-mapping')
  const pos = originalPositionFor(new TraceMap(map), { line: problem.line + WRAP_LINE_OFFSET, column: Math.max(0, problem.column - 1) })
  const line = pos.line !== null && pos.line > WRAP_LINE_OFFSET ? pos.line - WRAP_LINE_OFFSET : problem.line
  const column = pos.line !== null && pos.line > WRAP_LINE_OFFSET ? (pos.column ?? 0) + 1 : problem.column
  return { message: `line ${line}: ${why}; nothing ran`, line, column }
}

/** esbuild's messages as plain data (what a compile error is said with), safe to post to another thread. */
function plainMessages(messages: Message[]): Message[] {
  return messages.map((m) => ({
    id: m.id,
    pluginName: m.pluginName,
    text: m.text,
    location: m.location ? { ...m.location } : null,
    notes: [],
    detail: undefined,
  }))
}

function mentionsNamespace(messages: Message[]): boolean {
  return messages.some((m) => m.location?.lineText.match(/\b(namespace|module)\s+[A-Za-z_$]/))
}

/** Replace each top-level `namespace X { … }` with its compiled JS, keeping the line count where possible. */
async function compileNamespacesInPlace(source: string, shapes: ProgramShapes, wait: EsbuildWait): Promise<string | undefined> {
  const spans = await shapes.namespaceSpans(source)
  if (spans === undefined || spans.length === 0) return undefined
  let out = source
  for (const span of [...spans].reverse()) {
    const text = source.slice(span.start, span.end)
    try {
      const { transform } = await esbuild()
      const js = (await wait(transform(text, { loader: 'ts', format: 'esm', target: 'es2022' }))).code.trimEnd()
      const pad = Math.max(0, text.split('\n').length - js.split('\n').length)
      out = out.slice(0, span.start) + js + '\n'.repeat(pad) + out.slice(span.end)
    } catch {
      return undefined
    }
  }
  return out
}

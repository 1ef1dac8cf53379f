/**
 * The check-off path of the checker's thread (sdk/typecheck-worker.ts): a request with no declarations and
 * no session is prepared here — normalised, its wrapper's shape proved, oxc's gate passed on the same parse,
 * parse tasks answered — with Babel and acorn, so the thread of a process that never checks a program never
 * loads TypeScript. A text past these parsers' stacks (a RangeError) goes to TypeScript's path instead.
 * The same code prepares a program the gate admits in the host's own thread (sdk/host-prepare.ts): compileLite.
 */
import { type CompiledText, compileFast, type FastCompiler, type ProgramShapes, type ShapeAnswer } from '../program-compile.js'
import type { NormalisedProgram } from '../program-text.js'
import { type ShapeResult, wrapProgram } from '../program-wrap.js'
import type { CheckRequest, ParseAnswer, ParseTask } from '../typecheck-protocol.js'
import { fastCompileLite } from './fast-gate.js'
import { normaliseBody, normaliseParsed } from './normalise.js'
import { wrapperBody } from './one-parse.js'
import { type LiteParse, parseProgram } from './parse.js'
import { cleanProgramText } from '../program-rules.js'
import { checkWrappedShapeLite, parseWrappedShapeLite, topLevelNamespaceSpansLite } from './shape.js'

export interface LitePrepared {
  normalised: NormalisedProgram
  shape?: ShapeResult
  /** oxc behind Babel's gate, for the proved source (undefined: esbuild compiles). */
  fast?: FastCompiler
}

/**
 * Normalises a one-shot program and proves its wrapped text's shape; throws (a RangeError) past the parsers'
 * stacks. A program that normalising leaves as it is takes one Babel parse, not two (sdk/lite/one-parse.ts).
 */
export function prepareLite(source: string, allowNodeImports: boolean): LitePrepared {
  const options = { allowNodeImports }
  const changes: string[] = []
  const text = cleanProgramText(source, changes)
  const wrapped = wrapProgram(text).text
  const first = parseWrappedShapeLite(wrapped, 'ts')
  const body = first.shape.ok ? wrapperBody(wrapped, first.parsed) : undefined
  const normalised = body ? normaliseBody(body, text, changes, options) : normaliseParsed(text, changes, parseProgram(text), options)
  if (normalised.problem) return { normalised }
  // Unchanged: `wrapped` is the normalised text wrapped, so its parse and proof are the ones asked for.
  if (normalised.text === text) return proved(normalised, wrapped, first)
  const rewrapped = wrapProgram(normalised.text).text
  return proved(normalised, rewrapped, parseWrappedShapeLite(rewrapped, 'ts'))
}

function proved(
  normalised: NormalisedProgram,
  wrapped: string,
  { shape, parsed }: { shape: ShapeResult; parsed?: LiteParse },
): LitePrepared {
  const fast: FastCompiler | undefined = parsed && ((text) => (text === wrapped ? fastCompileLite(text, parsed) : undefined))
  return { normalised, shape, ...(fast ? { fast } : {}) }
}

/** A check-off one-shot program as prepared: what the thread answers (CheckResponse's `prepared`), and the host. */
export interface LiteAnswer {
  normalised: NormalisedProgram
  shape?: ShapeResult
  compiled?: CompiledText
}

/**
 * Compiles what prepareLite prepared (with `compile`, and no problem): oxc behind its gate on the same parse,
 * its output proved by acorn (`shapes`), else `rest` — the thread's esbuild (compileSlow); in the host,
 * undefined: the program goes to the thread. The checker's thread and the host run this one function, so
 * the text, its proofs and its compiled output are the same wherever it was prepared.
 */
export async function compileLite(
  lite: LitePrepared,
  compile: boolean,
  shapes: ProgramShapes,
  rest: (text: string, shape: ShapeResult | undefined) => Promise<CompiledText | undefined>,
): Promise<LiteAnswer | undefined> {
  const { normalised, shape } = lite
  const prepared = { normalised, ...(shape ? { shape } : {}) }
  if (!compile || normalised.problem) return prepared
  const compiled = (await compileFast(normalised.text, shapes, shape, lite.fast)) ?? (await rest(normalised.text, shape))
  return compiled && { ...prepared, compiled }
}

/** The request prepared without TypeScript, or undefined: it needs TypeScript (a check, a session cell, a text the lite parsers could not finish). */
export function prepareLiteRequest(request: CheckRequest): LitePrepared | undefined {
  if (request.declarations !== undefined || request.session !== undefined) return undefined
  if (!request.normalise || request.source === undefined) return undefined
  try {
    return prepareLite(request.source, request.normalise.allowNodeImports)
  } catch {
    return undefined
  }
}

/** A parse task read by Babel or acorn; undefined if they could not finish it (TypeScript's reading then answers). */
export function parseLite(task: ParseTask): ParseAnswer | undefined {
  try {
    if (task.kind === 'shape') return { shape: checkWrappedShapeLite(task.text, task.language) }
    return { spans: topLevelNamespaceSpansLite(task.source) }
  } catch {
    return undefined
  }
}

/**
 * Compiling's parsing (sdk/program-compile.ts) without TypeScript; a text past the lite parsers' stacks
 * (esbuild's output of an absurdly nested program) is read by `fallback`'s, TypeScript's.
 */
export function liteShapes(fallback: () => Promise<ProgramShapes>): ProgramShapes {
  return {
    checkShape(text: string, language: 'ts' | 'js'): ShapeAnswer | Promise<ShapeAnswer> {
      const answer = parseLite({ kind: 'shape', text, language })
      if (answer && 'shape' in answer) return answer.shape
      return fallback().then((shapes) => shapes.checkShape(text, language))
    },
    namespaceSpans(source: string) {
      const answer = parseLite({ kind: 'namespaces', source })
      if (answer && 'spans' in answer) return answer.spans
      return fallback().then((shapes) => shapes.namespaceSpans(source))
    },
  }
}

/**
 * The check-off path of the checker's thread (sdk/typecheck-worker.ts): a request with no declarations and
 * no session is prepared here — normalised, its wrapper's shape proved, parse tasks answered — with Babel
 * and acorn, so the thread of a process that never checks a program never loads TypeScript.
 */
import type { NormalisedProgram } from '../program-text.js'
import { type ShapeResult, wrapProgram } from '../program-wrap.js'
import type { CheckRequest, CheckResponse, NormalisedMessage, ParseAnswer, ParseTask } from '../typecheck-protocol.js'
import { normaliseLite } from './normalise.js'
import { checkWrappedShapeLite, topLevelNamespaceSpansLite } from './shape.js'

/** Normalises a one-shot program and proves its wrapped text's shape (typecheck-worker.ts's normalise step). */
export function prepareLite(source: string, allowNodeImports: boolean): { normalised: NormalisedProgram; shape?: ShapeResult } {
  const normalised = normaliseLite(source, { allowNodeImports })
  if (normalised.problem) return { normalised }
  return { normalised, shape: checkWrappedShapeLite(wrapProgram(normalised.text).text, 'ts') }
}

export function parseLite(task: ParseTask): ParseAnswer {
  if (task.kind === 'shape') return { shape: checkWrappedShapeLite(task.text, task.language) }
  return { spans: topLevelNamespaceSpansLite(task.source) }
}

/**
 * The thread's answers to a request that needs no TypeScript (no declarations, not a session cell), in the
 * order it posts them; undefined for any other request, and for one the lite parsers could not finish (a
 * program nested past Babel's or acorn's stack): TypeScript's path answers those, as it did before.
 */
export function liteAnswers(request: CheckRequest): (NormalisedMessage | CheckResponse)[] | undefined {
  if (request.declarations !== undefined || request.session !== undefined) return undefined
  const id = request.id
  try {
    if (request.task !== undefined) return [{ id, ok: true, diagnostics: [], parsed: parseLite(request.task) }]
    const done: CheckResponse = { id, ok: true, diagnostics: [] }
    if (!request.normalise || request.source === undefined) return [done]
    const { normalised, shape } = prepareLite(request.source, request.normalise.allowNodeImports)
    return [{ id, normalised, ...(shape ? { shape } : {}) }, done]
  } catch {
    return undefined
  }
}

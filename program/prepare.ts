/**
 * The program pipeline's first stages, in loop order, for one request of the checker's thread (with the
 * check on or off, one-shot or a session cell): normalise (normalise.ts) → for a session cell, make its
 * top-level declarations the realm's globals (session-text.ts) → wrap and prove the one function
 * (wrap.ts, shape.ts). The thread then compiles (compile.ts) and checks (typecheck.ts) what this prepared.
 * TypeScript's parser reads every text, so the text the checker checks, the one proved and the one compiled
 * are read by one parser.
 */
import { fastCompile } from './compile-fast-gate.js'
import type { FastCompiler } from './compile.js'
import { type NormalisedProgram, normaliseSafely } from './normalise.js'
import { rewriteSessionProgram, SESSION_CHANGE, type SessionRewrite } from './session-text.js'
import { untypedDeclarations } from './session-types.js'
import { parseWrappedShape } from './shape.js'
import type { SessionPrepared } from './typecheck-protocol.js'
import { type ProgramProblem, type ShapeResult, wrapProgram } from './wrap.js'

export interface PrepareRequest {
  source: string
  allowNodeImports: boolean
  /** A session cell: the session's earlier declarations. */
  session?: { declarations: string }
  /** Whether the cell's check runs (its names are then declared untyped until the check answers). */
  checked: boolean
}

export interface PreparedText {
  /** The text the check reads (a session cell as written). */
  checked: string
  /** The text that runs (a session cell rewritten), or why nothing runs. */
  runnable: NormalisedProgram
  /** The shape of the runnable text wrapped; absent with a problem. */
  shape?: ShapeResult
  /** A session cell: the declarations to keep if it runs, and the names it binds. */
  session?: SessionPrepared
  /** oxc behind its gate on the same parse as the shape proof (compile-fast.ts). */
  fast?: FastCompiler
}

export function prepareText(request: PrepareRequest): PreparedText {
  const { session } = request
  const normalised = normaliseSafely(request.source, request.allowNodeImports, session !== undefined)
  // A session cell runs rewritten (its declarations made globals) and is checked as written.
  const rewritten = session && !normalised.problem ? rewriteSafely(normalised) : undefined
  const rewrite = rewritten && 'text' in rewritten ? rewritten : undefined
  const runnable: NormalisedProgram =
    rewritten && 'problem' in rewritten
      ? { ...normalised, problem: rewritten.problem }
      : rewrite && rewrite.bindings.length > 0
        ? { ...normalised, text: rewrite.text, changes: [...normalised.changes, SESSION_CHANGE] }
        : normalised
  const parsed = runnable.problem ? undefined : parseWrappedShape(wrapProgram(runnable.text).text, 'ts')
  const file = parsed?.file
  const fast: FastCompiler | undefined = file && ((wrapped) => fastCompile(wrapped, file))
  // Until the check answers (or without one), the cell's names are declared untyped; with the check
  // off, the declarations stay as given.
  const prepared: SessionPrepared | undefined = session && {
    declarations: !request.checked || !rewrite ? session.declarations : untypedDeclarations(session.declarations, rewrite.bindings),
    bindings: rewrite?.bindings ?? [],
  }
  return {
    checked: normalised.text,
    runnable,
    ...(parsed ? { shape: parsed.shape } : {}),
    ...(prepared ? { session: prepared } : {}),
    ...(fast ? { fast } : {}),
  }
}

/** The session rewrite, made total: if it fails, the cell does not run (unrewritten, its bindings would be lost unseen). */
function rewriteSafely(normalised: NormalisedProgram): SessionRewrite | { problem: ProgramProblem } {
  try {
    return rewriteSessionProgram(normalised.text)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    return { problem: { message: `the program could not be prepared as a session cell (${why}); nothing ran`, line: 1, column: 1 } }
  }
}

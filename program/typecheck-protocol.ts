/** The messages between the host and the type checker's thread (plain data: structured-clone safe). */
import type { CompiledText } from './compile.js'
import type { NormalisedProgram } from './normalise.js'
import type { ShapeResult } from './wrap.js'
import type { SessionBinding } from './session-text.js'
import type { TypeDiagnostic } from './typecheck.js'

/** Work that parses a text without checking it (the host's thread parses no program). */
export type ParseTask =
  /** Prove a wrapped text (TypeScript source, or esbuild's JS output) is exactly the wrapper's one function. */
  | { kind: 'shape'; text: string; language: 'ts' | 'js' }
  /** Where the top-level namespaces of a program body are (runtime/compile.ts splices them). */
  | { kind: 'namespaces'; source: string }

export type ParseAnswer = { shape: ShapeResult } | { spans: { start: number; end: number }[] }

export interface CheckRequest {
  id: number
  /** The SDK to check against; absent: no type check (normalise and shape-check only, or a parse task). */
  declarations?: string
  /** Absent (and no task): only build the checker for these declarations (warming). */
  source?: string
  /**
   * Normalise `source` first (program/normalise.ts), prove its wrapped text is one function, and check the
   * normalised text; answered in two messages.
   */
  normalise?: {
    allowNodeImports: boolean
    /**
     * Compile the prepared text too (program/compile.ts: esbuild, then the output's shape proof), in
     * this same request: with the check off, or on and compiled by oxc (done before the check starts), the
     * answer comes with the normalised text; else esbuild works while the check runs and its answer comes
     * before the check's (CompiledMessage).
     */
    compile?: boolean
  }
  /**
   * A session cell (issue 15): the normalised text is rewritten so its top-level declarations become the
   * realm's globals (program/session-text.ts), and the check (if any) sees the session's earlier `declarations`
   * and answers the updated ones (program/session-types.ts).
   */
  session?: { declarations: string }
  /** Check against Node's types too (the program has Node: the Docker backend). */
  nodeTypes?: boolean
  /** Instead of a check: parse work, answered in `parsed`. */
  task?: ParseTask
}

/** The normalised text and its wrapper's shape, sent before the check's answer so a check past its budget still has them. */
export interface NormalisedMessage {
  id: number
  normalised: NormalisedProgram
  /** Absent when normalising found a problem (nothing to wrap). */
  shape?: ShapeResult
  /** The compiled program (with `normalise.compile`: the check off, or on and oxc compiled it). */
  compiled?: CompiledText
  /** Session cells: what the cell binds, and the declarations to keep if the check does not answer (its names untyped). */
  session?: SessionPrepared
}

/** With `normalise.compile` and the check on: the compiled program, sent when esbuild answered (during or after the check). */
export interface CompiledMessage {
  id: number
  compiled: CompiledText
}

/** A prepared session cell: the declarations after it, and the names it binds in the realm. */
export interface SessionPrepared {
  declarations: string
  bindings: SessionBinding[]
}

/** A thread started without the lib parsed (no check had been asked for) parsed it for this request: its budget starts again. */
export interface WarmedMessage {
  id: number
  warmed: true
}

/**
 * `compile`: a long stage of the request is done (preparing, the check, a wait on esbuild) and the next
 * begins: its budget starts again, so each stage has the budget it had as a request of its own.
 * `waiting`: the thread is idle, waiting on esbuild's service (its own process, as the host's was before
 * compiling moved here): no budget runs until the thread works again (`compile`).
 * Sent only around a stage that took long: a usual request is answered in one message.
 */
export interface StageMessage {
  id: number
  stage: 'compile' | 'waiting'
}

/** What a thread is told when it starts (workerData). */
export interface CheckerThreadData {
  /** Parse the lib before saying ready: this process checks programs (else the lib waits for the first check). */
  warmChecker: boolean
}

export type CheckResponse =
  | {
      id: number
      ok: true
      diagnostics: TypeDiagnostic[]
      parsed?: ParseAnswer
      session?: { declarations: string }
      /** With no check to follow: what a NormalisedMessage would have said, in the answer itself (one message, one wake-up of the host). */
      prepared?: Omit<NormalisedMessage, 'id'>
    }
  | { id: number; ok: false; message: string }

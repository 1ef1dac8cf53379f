/** The messages between the host and the type checker's thread (plain data: structured-clone safe). */
import type { NormalisedProgram } from './program-text.js'
import type { ShapeResult } from './program-wrap.js'
import type { TypeDiagnostic } from './typecheck.js'

/** Work that parses a text without checking it (the host never parses a program itself). */
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
   * Normalise `source` first (sdk/program-text.ts), prove its wrapped text is one function, and check the
   * normalised text; answered in two messages.
   */
  normalise?: { allowNodeImports: boolean }
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
}

/** A thread started without the lib parsed (no check had been asked for) parsed it for this request: its budget starts again. */
export interface WarmedMessage {
  id: number
  warmed: true
}

/** What a thread is told when it starts (workerData). */
export interface CheckerThreadData {
  /** Parse the lib before saying ready: this process checks programs (else the lib waits for the first check). */
  warmChecker: boolean
}

export type CheckResponse =
  | { id: number; ok: true; diagnostics: TypeDiagnostic[]; parsed?: ParseAnswer }
  | { id: number; ok: false; message: string }

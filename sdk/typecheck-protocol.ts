/** The messages between the host and the type checker's thread (plain data: structured-clone safe). */
import type { NormalisedProgram } from './program-text.js'
import type { TypeDiagnostic } from './typecheck.js'

export interface CheckRequest {
  id: number
  declarations: string
  /** Absent: only build the checker for these declarations (warming). */
  source?: string
  /** Normalise `source` first (sdk/program-text.ts) and check the normalised text; answered in two messages. */
  normalise?: { allowNodeImports: boolean }
  /** Check against Node's types too (the program has Node: the Docker backend). */
  nodeTypes?: boolean
}

/** The normalised text, sent before the check's answer so a check past its budget still has it. */
export interface NormalisedMessage {
  id: number
  normalised: NormalisedProgram
}

export type CheckResponse = { id: number; ok: true; diagnostics: TypeDiagnostic[] } | { id: number; ok: false; message: string }

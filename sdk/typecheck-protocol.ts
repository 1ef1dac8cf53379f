/** The messages between the host and the type checker's thread (plain data: structured-clone safe). */
import type { TypeDiagnostic } from './typecheck.js'

export interface CheckRequest {
  id: number
  declarations: string
  /** Absent: only build the checker for these declarations (warming). */
  source?: string
}

export type CheckResponse = { id: number; ok: true; diagnostics: TypeDiagnostic[] } | { id: number; ok: false; message: string }

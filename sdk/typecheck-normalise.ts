/**
 * The normaliser (sdk/program-text.ts) made total: a text that overflows the parser's stack is a problem to
 * report, never a throw. Used only in the checker's thread (so normalising a pathological program does not
 * stall the host), with the check on or off; the host never loads it (it loads TypeScript).
 */
import { normaliseProgram, type NormalisedProgram } from './program-text.js'

export function normaliseSafely(code: string, allowNodeImports: boolean, session = false): NormalisedProgram {
  try {
    return normaliseProgram(code, { allowNodeImports, ...(session ? { session } : {}) })
  } catch (e) {
    const why =
      e instanceof RangeError ? 'it nests too deeply to parse' : `the normaliser failed (${e instanceof Error ? e.message : String(e)})`
    return { text: code, changes: [], problem: { message: `the program cannot be compiled: ${why}`, line: 1, column: 1 } }
  }
}

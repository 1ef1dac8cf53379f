/**
 * Which program texts the host's own thread may prepare (Babel's parse and normalise, the wrapper's shape
 * proof, oxc behind its depth gate, acorn's proof of the output): DESIGN invariant 5 says the host's thread
 * never waits on a program, and the checker's thread has a budget and is terminated past it — the host's
 * thread cannot be. So a text is prepared here only if this gate bounds everything that work can cost; any
 * other text goes to the checker's thread, which is always there. One linear pass, no parser; when unsure,
 * refuse. test/security/host-prepare-gate.test.ts is the attack corpus (every admitted text's whole
 * prepare stays under a CPU ceiling) and the property that realistic programs are admitted.
 *
 * Why it is not enough to bound the length: Babel's TypeScript plugin parses some spans twice — a *try* that
 * is thrown away when it fails (`a < b` tries type arguments; `<T>x` tries a generic arrow, then a type
 * assertion; `(a) : T` after a `?` tries an arrow's return type). A try inside the span of another try is
 * parsed again each time the outer one is, so nested tries cost ~2–4× per level: `<T>(` sixteen deep is 88
 * bytes and 2.4 s, `a < ((x = ` eight deep 280 bytes and 14 s. Tries one after another are only quadratic
 * (`a0 < a1 < …`, 400 of them in 2.7 KB: 0.5 s).
 */
import { cleanProgramText } from './program-rules.js'
import { HOST_PREP_LIMITS } from './host-prep-lex.js'
import { Scan } from './host-prep-scan.js'

export { HOST_PREP_LIMITS }

/** Whether the host's thread may prepare `source` (else the checker's thread does). Linear in its length. */
export function hostPrepareAdmits(source: string): boolean {
  return hostPrepareRefusal(source) === undefined
}

/** Why the gate refuses `source` (which bound, or which text this scan cannot read as Babel would), or undefined. */
export function hostPrepareRefusal(source: string): string | undefined {
  if (source.length > HOST_PREP_LIMITS.maxChars) return 'length'
  // U+2028/U+2029 end a line comment and a line to Babel; refusing them keeps this scan's lines Babel's.
  if (/[\u2028\u2029]/.test(source)) return 'line separator'
  // What Babel reads: fences stripped, line ends made \n (a fence's backticks would otherwise read as templates here).
  const text = cleanProgramText(source, [])
  if (text.length > HOST_PREP_LIMITS.maxChars) return 'length'
  const scan = new Scan(text)
  return scan.run() ? undefined : scan.why
}

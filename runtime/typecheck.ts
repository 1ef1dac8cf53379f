/**
 * The runtime's side of the pre-run type check: a warm checker kept in step with the registry.
 * The checker itself (TypeScript's API) lives in sdk/typecheck.ts.
 */
import { formatTypeDiagnostics } from '../sdk/diagnostics.js'
import { createTypeChecker, type AmbientFile } from '../sdk/typecheck.js'
import type { TypeCheckOutcome } from './run-code.js'

export type TypecheckMode = 'error' | 'warn' | 'off'

/**
 * "'x' is of type 'unknown'" (TS18046, TS2571) never blocks a run: a tool without an `output` schema
 * honestly returns `unknown`, and a program that reads `r.items` off it is likely right. It is reported as a
 * note instead, so the model still learns the result was untyped.
 */
const ADVISORY_CODES = new Set([18046, 2571])

export interface RuntimeTypecheck {
  mode: 'error' | 'warn'
  check(source: string): Promise<TypeCheckOutcome>
  warm(): Promise<void>
  /** The registry changed: declarations are re-read before the next check (no cold restart). */
  refresh(): void
}

/** `ambientFiles`: more declarations checked with every program (Node's types in the Docker backend). */
export function createTypecheck(mode: TypecheckMode, declarations: () => string, options: { ambientFiles?: readonly AmbientFile[] } = {}): RuntimeTypecheck | undefined {
  if (mode === 'off') return undefined
  const checker = createTypeChecker(options.ambientFiles ? { ambientFiles: options.ambientFiles } : {})
  let current: string | undefined
  const sync = () => {
    const text = declarations()
    if (text !== current) {
      checker.setDeclarations(text)
      current = text
    }
  }
  return {
    mode,
    check: async (source) => {
      sync()
      const diagnostics = checker.check(source)
      const blocking = diagnostics.filter((d) => !ADVISORY_CODES.has(d.code))
      const advisory = diagnostics.filter((d) => ADVISORY_CODES.has(d.code))
      return {
        count: blocking.length,
        report: formatTypeDiagnostics(blocking),
        ...(advisory.length ? { advisory: formatTypeDiagnostics(advisory) } : {}),
      }
    },
    warm: async () => {
      sync()
      await checker.warm()
    },
    refresh: () => {
      current = undefined
    },
  }
}

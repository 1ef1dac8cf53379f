/**
 * The runtime's side of the pre-run type check: a warm checker kept in step with the registry.
 * The checker itself (TypeScript's API) lives in sdk/typecheck.ts.
 */
import { formatTypeDiagnostics } from '../sdk/diagnostics.js'
import { createTypeChecker } from '../sdk/typecheck.js'
import type { TypeCheckOutcome } from './run-code.js'

export type TypecheckMode = 'error' | 'warn' | 'off'

export interface RuntimeTypecheck {
  mode: 'error' | 'warn'
  check(source: string): Promise<TypeCheckOutcome>
  warm(): Promise<void>
  /** The registry changed: declarations are re-read before the next check (no cold restart). */
  refresh(): void
}

export function createTypecheck(mode: TypecheckMode, declarations: () => string): RuntimeTypecheck | undefined {
  if (mode === 'off') return undefined
  const checker = createTypeChecker()
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
      return { count: diagnostics.length, report: formatTypeDiagnostics(diagnostics) }
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

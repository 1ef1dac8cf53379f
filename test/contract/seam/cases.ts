/** Every promise of the Sandbox seam, one case each (their names are what a skip list names). */
import { runCases } from './cases-runs.js'
import { valueCases } from './cases-values.js'
import { limitCases } from './cases-limits.js'
import { sessionCases } from './cases-sessions.js'
import { effectCases } from './cases-effects.js'
import type { SeamCase } from './context.js'

export const CASES: readonly SeamCase[] = [...runCases, ...valueCases, ...limitCases, ...sessionCases, ...effectCases]

export function caseNamed(name: string): SeamCase {
  const found = CASES.find((c) => c.name === name)
  if (!found) throw new Error(`no seam case named "${name}"`)
  return found
}

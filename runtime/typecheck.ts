/**
 * The runtime's side of the pre-run type check: declarations kept in step with the registry, the check done
 * in a checker thread (sdk/typecheck-pool.ts) within a time budget, and its diagnostics turned into what the
 * run reports: blocking errors (the blocking rule, sdk/typecheck-rule.ts) and notes, one line per cause.
 *
 * Past the budget the check is dropped with a note and the program runs unchecked under its limits: the
 * check is advisory for the program's correctness, never a security boundary (the sandbox is), so a program
 * too hard to type-check is not refused, and the host's thread never waits on it.
 */
import { formatTypeDiagnostics } from '../sdk/diagnostics.js'
import type { NormalisedProgram } from '../sdk/program-text.js'
import { checkInPool, type PoolAnswer, warmPool } from '../sdk/typecheck-pool.js'
import type { TypeDiagnostic } from '../sdk/typecheck.js'
import type { TypeCheckOutcome } from './run-code.js'

export type TypecheckMode = 'error' | 'warn' | 'off'

/** The default time a check may take in its thread; a warm check takes ~20 ms, a first one ~150 ms. */
export const DEFAULT_TYPECHECK_BUDGET_MS = 5_000
/** Notes beyond this many causes are counted, not listed. */
const MAX_NOTES = 5

export interface RuntimeTypecheck {
  mode: 'error' | 'warn'
  check(source: string): Promise<TypeCheckOutcome>
  /** Normalises (sdk/program-text.ts) and checks in the checker's thread; `normalised` absent if it never got that far. */
  prepare(source: string, allowNodeImports: boolean): Promise<{ normalised?: NormalisedProgram; outcome: TypeCheckOutcome }>
  warm(): Promise<void>
  /** The registry changed: declarations are re-read before the next check (no cold restart). */
  refresh(): void
}

export interface TypecheckOptions {
  /** How long one check may take in its thread before it is dropped (default 5,000 ms). */
  budgetMs?: number
  /** Check against Node's types too: the program has Node (the Docker backend). */
  nodeTypes?: boolean
}

export function createTypecheck(mode: TypecheckMode, declarations: () => string, options: TypecheckOptions = {}): RuntimeTypecheck | undefined {
  if (mode === 'off') return undefined
  const budgetMs = options.budgetMs ?? DEFAULT_TYPECHECK_BUDGET_MS
  const nodeTypes = options.nodeTypes === true
  let current: string | undefined
  const text = () => (current ??= declarations())
  const outcomeOf = (answer: PoolAnswer): TypeCheckOutcome => {
    if (!answer.ok) {
      const why = answer.reason === 'budget' ? `it took longer than its ${budgetMs} ms budget` : `the checker failed (${answer.message})`
      return { count: 0, report: '', advisory: `- the type check was skipped: ${why}; the program ran unchecked, under its limits` }
    }
    const blocking = answer.diagnostics.filter((d) => d.severity === 'error')
    const notes = answer.diagnostics.filter((d) => d.severity === 'note')
    return {
      count: blocking.length,
      report: formatTypeDiagnostics(blocking),
      ...(blocking.some((d) => d.code < 2000) ? { syntax: blocking.filter((d) => d.code < 2000) } : {}),
      ...(notes.length ? { advisory: formatNotes(notes) } : {}),
    }
  }
  return {
    mode,
    check: async (source) => outcomeOf(await checkInPool(text(), source, budgetMs, undefined, nodeTypes)),
    prepare: async (source, allowNodeImports) => {
      const answer = await checkInPool(text(), source, budgetMs, { allowNodeImports }, nodeTypes)
      return { ...(answer.normalised ? { normalised: answer.normalised } : {}), outcome: outcomeOf(answer) }
    },
    warm: () => warmPool(text(), nodeTypes),
    refresh: () => {
      current = undefined
    },
  }
}

/** One line per cause, with every line it was seen on: `line 2, 5: the result of tools.x has no declared type …`. */
export function formatNotes(notes: readonly TypeDiagnostic[]): string {
  const byCause = new Map<string, { lines: number[]; message: string }>()
  for (const n of notes) {
    const key = n.cause ?? `${n.code}:${n.message}`
    const entry = byCause.get(key) ?? { lines: [], message: n.message.split('\n')[0] ?? n.message }
    if (!entry.lines.includes(n.line)) entry.lines.push(n.line)
    byCause.set(key, entry)
  }
  const entries = [...byCause.values()]
  const shown = entries.slice(0, MAX_NOTES).map((e) => `- line ${e.lines.slice(0, 6).join(', ')}${e.lines.length > 6 ? ', …' : ''}: ${e.message}`)
  if (entries.length > MAX_NOTES) shown.push(`- …and ${entries.length - MAX_NOTES} more`)
  return shown.join('\n')
}

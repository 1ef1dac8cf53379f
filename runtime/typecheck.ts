/**
 * The runtime's side of the pre-run type check: declarations kept in step with the registry, the check done
 * in a checker thread (program/typecheck-pool.ts) within a time budget, and its diagnostics turned into what the
 * run reports: blocking errors (the blocking rule, program/typecheck-rule.ts) and notes, one line per cause.
 *
 * Past the budget the check is dropped with a note and the program runs unchecked under its limits: the
 * check is advisory for the program's correctness, never a security boundary (the sandbox is), so a program
 * too hard to type-check is not refused, and the host's thread never waits on it.
 *
 * In a process that shares the checker (program/checker-client.ts: the CLI), check-on requests go to this
 * user's shared checker, whose threads are warm across processes; its answers are the pool's own.
 *
 * The same threads prepare every program, with the check on or off (createProgramPrep), in the same request:
 * the program pipeline (program/prepare.ts: normalising, proving the wrapper's shape of the source, then
 * compiling and proving the output's): a run costs one thread round trip. Those are not advisory: past the
 * budget they fail closed (the run ends `compile`, an unproven wrapper never runs). With the check on,
 * esbuild compiles while the check runs. The host's thread parses no program: every parser of this grammar
 * (TypeScript's too) has short texts that take it seconds, and only the thread can be stopped.
 */
import { formatTypeDiagnostics } from '../program/diagnostics.js'
import type { NormalisedProgram } from '../program/normalise.js'
import type { ShapeResult } from '../program/wrap.js'
import { checkShared, warmShared } from '../program/checker-client.js'
import { parseInPool, type PoolAnswer, type PreparedParts } from '../program/typecheck-pool.js'
import type { SessionPrepared } from '../program/typecheck-protocol.js'
import type { TypeDiagnostic } from '../program/typecheck.js'
import type { CompiledText, ProgramShapes, ShapeAnswer } from './compile.js'

/** A check's verdict on one program, formatted for the run (runtime/run-errors.ts judges it). */
export interface TypeCheckOutcome {
  /** Formatted diagnostics that block (in `error` mode); empty when the program is clean. */
  report: string
  count: number
  /** Formatted notes that never block (working JavaScript strict TypeScript does not like), one line per cause. */
  advisory?: string
  /** The blocking syntax diagnostics, for a compile error said with the checker's hints. */
  syntax?: TypeDiagnostic[]
  /** The program lines (1-based) the blocking diagnostics name. */
  lines?: number[]
}

export type TypecheckMode = 'error' | 'warn' | 'off'

/** The default time a check may take in its thread: far above a check's usual time, even a first one's. */
export const DEFAULT_TYPECHECK_BUDGET_MS = 5_000
/** Notes beyond this many causes are counted, not listed. */
const MAX_NOTES = 5

/** A program as the checker's thread prepared it. */
export interface PreparedProgram {
  /** The normalised program; absent: the thread did not get that far (see `unprepared`). */
  normalised?: NormalisedProgram
  /** The shape of its wrapped text; absent with a problem in `normalised`, or when the thread did not get that far. */
  shape?: ShapeResult
  /** Why the program was not prepared (past the budget, a thread that died): the run must not go on. */
  unprepared?: string
  /**
   * The compiled program (runtime/compile.ts's compiledProgram makes it a CompiledProgram); absent: the
   * thread did not get that far (a check past its budget ended it): compile() it, with `shapes`.
   */
  compiled?: CompiledText
  /** The type check's outcome (with the check on). */
  outcome?: TypeCheckOutcome
  /**
   * A session cell (prepare's `session`): the declarations after it — typed when the check ran, its names
   * `any` when the check did not answer, as given with the check off — and the names it binds. Keep them
   * as the session's only when the cell ran.
   */
  session?: SessionPrepared
}

/** A session cell's context: the declarations of the session's earlier cells (program/session-types.ts). */
export interface SessionPrep {
  declarations: string
}

/** Normalising and shape checks in the checker's thread, for a runtime with the check on or off. */
export interface ProgramPrep {
  /**
   * Normalises `source`, proves its wrapped text's shape, compiles it and (with the check on) type-checks
   * it: one round trip. With `session`, the text to run has its top-level declarations made the realm's globals
   * (program/session-text.ts) and the check sees the session's earlier declarations.
   */
  prepare(source: string, allowNodeImports: boolean, session?: SessionPrep): Promise<PreparedProgram>
  /** compile()'s parsing (the compiled output's shape check, namespaces), each one round trip: for a program prepare() did not compile. */
  shapes: ProgramShapes
}

/** A program prepared for running while its check goes on (RuntimeTypecheck.prepareEarly). */
export interface EarlyPrepared {
  /**
   * What the run needs, as soon as the thread has it. With `outcome` set, the thread answered all at once
   * (it stopped before compiling, a problem in the text, esbuild compiled it): nothing is left to overlap.
   */
  prepared: PreparedProgram
  /** The check's outcome, when the thread has finished it. */
  verdict: Promise<TypeCheckOutcome>
}

export interface RuntimeTypecheck extends ProgramPrep {
  mode: 'error' | 'warn'
  /**
   * prepare() in two answers: the compiled program as soon as the thread has it (before its check, for a
   * program oxc compiles), then the check's verdict. For a run whose effects can be held until the verdict.
   */
  prepareEarly(source: string, allowNodeImports: boolean): Promise<EarlyPrepared>
  check(source: string): Promise<TypeCheckOutcome>
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

export function createTypecheck(
  mode: TypecheckMode,
  declarations: () => string,
  options: TypecheckOptions = {},
): RuntimeTypecheck | undefined {
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
      ...(blocking.length ? { lines: blocking.map((d) => d.line) } : {}),
      ...(blocking.some((d) => d.code < 2000) ? { syntax: blocking.filter((d) => d.code < 2000) } : {}),
      ...(notes.length ? { advisory: formatNotes(notes) } : {}),
    }
  }
  const prep = createProgramPrep(options, text)
  return {
    mode,
    check: async (source) => outcomeOf(await checkShared(text(), source, budgetMs, undefined, nodeTypes)),
    prepare: async (source, allowNodeImports, session) => {
      const answer = await prep.answer(source, allowNodeImports, session)
      return { ...prepared(answer, budgetMs), outcome: outcomeOf(answer) }
    },
    prepareEarly: (source, allowNodeImports) =>
      new Promise<EarlyPrepared>((resolve) => {
        const whole = prep.toThread(source, allowNodeImports, undefined, (parts) => {
          const early = prepared({ ok: true, diagnostics: [], ...parts }, budgetMs)
          if (early.compiled !== undefined) resolve({ prepared: early, verdict })
        })
        const verdict = whole.then(async (answer) => {
          if (verdictTiming.delayMs) await new Promise((r) => setTimeout(r, verdictTiming.delayMs))
          return outcomeOf(answer)
        })
        // Resolved already when the early answer came (a promise settles once).
        void whole.then((answer) => resolve({ prepared: { ...prepared(answer, budgetMs), outcome: outcomeOf(answer) }, verdict }))
      }),
    shapes: prep.shapes,
    warm: () => warmShared(text(), nodeTypes),
    refresh: () => {
      current = undefined
    },
  }
}

/**
 * Tests: each early-prepared program's verdict is held back this long (ms) after the check answered, so that
 * the program's race with its verdict is certain, whatever the machine's speed. Unset outside tests.
 */
export const verdictTiming: { delayMs?: number } = {}

/**
 * Preparing programs in the checker's thread, without a type check (`typecheck: 'off'`) or, with
 * `declarations`, checked in the same request (createTypecheck). The thread's budget covers each request.
 */
export function createProgramPrep(
  options: TypecheckOptions = {},
  declarations?: () => string,
): ProgramPrep & {
  answer(source: string, allowNodeImports: boolean, session?: SessionPrep): Promise<PoolAnswer>
  toThread(
    source: string,
    allowNodeImports: boolean,
    session?: SessionPrep,
    onPrepared?: (parts: PreparedParts) => void,
  ): Promise<PoolAnswer>
} {
  const budgetMs = options.budgetMs ?? DEFAULT_TYPECHECK_BUDGET_MS
  const toThread = (source: string, allowNodeImports: boolean, session?: SessionPrep, onPrepared?: (parts: PreparedParts) => void) =>
    checkShared(declarations?.(), source, budgetMs, { allowNodeImports, compile: true }, options.nodeTypes === true, session, onPrepared)
  const answer = (source: string, allowNodeImports: boolean, session?: SessionPrep): Promise<PoolAnswer> =>
    toThread(source, allowNodeImports, session)
  const unfinished = (a: PoolAnswer) => ({
    ok: false as const,
    unfinished: true as const,
    problem: { message: unpreparedMessage(a, budgetMs), line: 1, column: 1 },
  })
  return {
    answer,
    toThread,
    prepare: async (source, allowNodeImports, session) => prepared(await answer(source, allowNodeImports, session), budgetMs),
    shapes: {
      checkShape: async (text, language): Promise<ShapeAnswer> => {
        const a = await parseInPool({ kind: 'shape', text, language }, budgetMs)
        return a.ok && a.parsed && 'shape' in a.parsed ? a.parsed.shape : unfinished(a)
      },
      namespaceSpans: async (source) => {
        const a = await parseInPool({ kind: 'namespaces', source }, budgetMs)
        return a.ok && a.parsed && 'spans' in a.parsed ? a.parsed.spans : undefined
      },
    },
  }
}

/** What a run needs of a pool answer: the normalised text and its shape, or why it has none (fail closed). */
function prepared(answer: PoolAnswer, budgetMs: number): PreparedProgram {
  const { normalised, shape, session, compiled } = answer
  if (normalised === undefined || (normalised.problem === undefined && shape === undefined))
    return { unprepared: unpreparedMessage(answer, budgetMs) }
  return { normalised, ...(shape ? { shape } : {}), ...(session ? { session } : {}), ...(compiled ? { compiled } : {}) }
}

function unpreparedMessage(answer: PoolAnswer, budgetMs: number): string {
  if (!answer.ok && answer.reason === 'budget')
    return `the program is too large or deeply nested to prepare within ${budgetMs} ms; split it up`
  const why = answer.ok ? "the checker's thread gave no answer" : answer.message
  return `the program could not be prepared for running (${why}); nothing ran`
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
  const shown = entries
    .slice(0, MAX_NOTES)
    .map((e) => `- line ${e.lines.slice(0, 6).join(', ')}${e.lines.length > 6 ? ', …' : ''}: ${e.message}`)
  if (entries.length > MAX_NOTES) shown.push(`- …and ${entries.length - MAX_NOTES} more`)
  return shown.join('\n')
}

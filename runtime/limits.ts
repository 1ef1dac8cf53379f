import type { Limits } from '../vocabulary/types.js'

/**
 * Defaults sized for batch work: a program may touch a 10,000-file repository in one run (a read and a
 * write per file, plus globs and a few commands). The count limits are there to stop a runaway loop, not
 * the job; the wall clock and the memory limit are the real guards.
 */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  timeoutMs: 30_000,
  deadlineMs: 600_000,
  memoryMb: 128,
  maxOutputBytes: 1024 * 1024,
  maxToolCalls: 100_000,
  maxParallelToolCalls: 64,
  maxObservationBytes: 32 * 1024,
  maxSourceBytes: 512 * 1024,
  maxDiffBytes: 32 * 1024 * 1024,
  // A poll that sleeps 300 ms between asks stays under it for the whole default program time (30 s).
  maxIdenticalCalls: 100,
})

/** Node timers overflow past 2^31−1 ms (the run would "time out" at once); room is left for the backstops. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1 - 120_000

/** Per limit: the CLI flag that sets it, its unit, and the range a value is clamped to. */
export const LIMIT_SPECS: Readonly<
  Record<keyof Limits, { flag: string; unit: 'ms' | 'MB' | 'bytes' | 'count'; min: number; max: number }>
> = Object.freeze({
  timeoutMs: { flag: '--timeout', unit: 'ms', min: 1, max: MAX_TIMEOUT_MS },
  deadlineMs: { flag: '--deadline', unit: 'ms', min: 1, max: MAX_TIMEOUT_MS },
  memoryMb: { flag: '--memory', unit: 'MB', min: 8, max: 64 * 1024 },
  maxOutputBytes: { flag: '--max-output', unit: 'bytes', min: 1, max: 2 ** 31 },
  maxToolCalls: { flag: '--max-tool-calls', unit: 'count', min: 1, max: 1e9 },
  // In flight at once; the sandboxes refuse more than 4,096 outstanding calls anyway (EAGAIN).
  maxParallelToolCalls: { flag: '--max-parallel', unit: 'count', min: 1, max: 4_096 },
  maxObservationBytes: { flag: '--max-observation', unit: 'bytes', min: 256, max: 2 ** 30 },
  maxSourceBytes: { flag: '--max-source', unit: 'bytes', min: 1, max: 256 * 1024 * 1024 },
  maxDiffBytes: { flag: '--max-diff-bytes', unit: 'bytes', min: 1, max: 2 ** 40 },
  maxIdenticalCalls: { flag: '--max-identical-calls', unit: 'count', min: 1, max: 1e9 },
})

/** "raise it with --max-tool-calls (limits.maxToolCalls)": said by every limit that stops a run. */
export function raiseHint(key: keyof Limits): string {
  return `raise it with ${LIMIT_SPECS[key].flag} (limits.${key})`
}

/** Why `value` is not a usable setting of `key`, or undefined when it is (after clamping). */
export function limitProblem(key: keyof Limits, value: unknown): string | undefined {
  const spec = LIMIT_SPECS[key]
  if (typeof value !== 'number' || Number.isNaN(value)) return `must be a number, got ${describe(value)}`
  if (value <= 0) return `must be positive, got ${value}`
  if (value !== Infinity && !Number.isInteger(value))
    return `must be a whole number of ${spec.unit === 'count' ? 'calls' : spec.unit}, got ${value}`
  if (value < spec.min) return `must be at least ${spec.min}${spec.unit === 'count' ? '' : ' ' + spec.unit}, got ${value}`
  return undefined
}

/**
 * Merges user limits over `base` (the defaults, or a runtime's limits for a per-run override). A value
 * that makes no sense (NaN, negative, zero, fractional, not a number, an unknown key) is API misuse and
 * throws a TypeError naming the limit; a value above the range (Infinity included) is clamped to it.
 */
export function resolveLimits(partial: Partial<Limits> | undefined, base: Limits = DEFAULT_LIMITS): Limits {
  const limits: Limits = { ...base }
  for (const [key, value] of Object.entries(partial ?? {})) {
    if (value === undefined) continue
    if (!(key in LIMIT_SPECS)) throw new TypeError(`codeact: unknown limit "${key}"; known limits: ${Object.keys(LIMIT_SPECS).join(', ')}`)
    const k = key as keyof Limits
    const problem = limitProblem(k, value)
    if (problem) throw new TypeError(`codeact: limits.${k} ${problem}`)
    limits[k] = Math.min(value as number, LIMIT_SPECS[k].max)
  }
  return limits
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

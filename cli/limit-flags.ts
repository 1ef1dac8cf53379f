/**
 * One CLI flag per limit (`--max-tool-calls`, `--max-parallel`, `--max-output` …) and the staging flags
 * (`--dry-run`, `--atomic`), shared by `codeact run` and `codeact mcp` through the one flags table.
 * Values are checked here so a typo is a usage error naming the flag, not a TypeError from the API.
 */
import type { ParseArgsConfig } from 'node:util'
import { LIMIT_SPECS, limitProblem } from '../runtime/limits.js'
import type { Limits, SessionLimits } from '../vocabulary/types.js'
import type { FlagValues } from './flag-values.js'
import { UsageError } from './usage-error.js'

export const LIMIT_FLAGS = {
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  memory: { type: 'string' },
  'max-tool-calls': { type: 'string' },
  'max-parallel': { type: 'string' },
  'max-output': { type: 'string' },
  'max-observation': { type: 'string' },
  'max-source': { type: 'string' },
  'max-diff-bytes': { type: 'string' },
  'max-identical-calls': { type: 'string' },
} satisfies ParseArgsConfig['options']

export const STAGING_FLAGS = {
  'dry-run': { type: 'boolean' },
  atomic: { type: 'boolean' },
} satisfies ParseArgsConfig['options']

/** The limits of session realms (`createRuntime({ sessions })`), for the commands that keep state (`mcp`, `repl`). */
export const SESSION_FLAGS = {
  'max-realms': { type: 'string' },
  'realm-idle': { type: 'string' },
  'realm-memory': { type: 'string' },
} satisfies ParseArgsConfig['options']

export type SessionFlagValues = FlagValues<typeof SESSION_FLAGS>

const SESSION_FLAG_SPECS = {
  'max-realms': { key: 'max', unit: 'count', min: 1 },
  'realm-idle': { key: 'idleMs', unit: 'ms', min: 1 },
  'realm-memory': { key: 'memoryMb', unit: 'MB', min: 8 },
} as const

/** `--max-realms 16 --realm-idle 5m` → `{ max: 16, idleMs: 300000 }`; nonsense is a usage error naming the flag. */
export function sessionLimitsFromFlags(values: SessionFlagValues): Partial<SessionLimits> {
  const out: Partial<SessionLimits> = {}
  for (const [flag, spec] of Object.entries(SESSION_FLAG_SPECS) as [
    keyof typeof SESSION_FLAGS,
    (typeof SESSION_FLAG_SPECS)[keyof typeof SESSION_FLAGS],
  ][]) {
    const text = values[flag]
    if (text === undefined) continue
    const n = parseQuantity(text, spec.unit)
    if (!Number.isFinite(n) || !Number.isInteger(n) || n < spec.min)
      throw new UsageError(
        `--${flag} must be a whole number${spec.unit === 'ms' ? ' of milliseconds (or 30s, 5m)' : ''} of at least ${spec.min}, got "${text}"`,
      )
    out[spec.key] = n
  }
  return out
}

export type LimitFlagValues = FlagValues<typeof LIMIT_FLAGS>
export type StagingFlagValues = FlagValues<typeof STAGING_FLAGS>

const FLAG_TO_LIMIT = Object.fromEntries(
  Object.entries(LIMIT_SPECS).map(([key, spec]) => [spec.flag.slice(2), key as keyof Limits]),
) as Record<keyof typeof LIMIT_FLAGS, keyof Limits>

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
}
const TIME_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }

/** `4MiB` → 4194304, `30s` → 30000, `1e5` → 100000; NaN for anything else. */
export function parseQuantity(text: string, unit: 'ms' | 'MB' | 'bytes' | 'count'): number {
  const m = /^\s*(\d+(?:\.\d+)?(?:e\d+)?|Infinity)\s*([a-z]*)\s*$/i.exec(text)
  if (!m) return Number.NaN
  const n = Number(m[1])
  const suffix = (m[2] ?? '').toLowerCase()
  const scale = unit === 'bytes' ? BYTE_UNITS[suffix] : unit === 'ms' ? TIME_UNITS[suffix] : suffix === '' ? 1 : undefined
  return scale === undefined ? Number.NaN : n * scale
}

export function limitsFromFlags(values: LimitFlagValues): Partial<Limits> {
  const limits: Partial<Limits> = {}
  for (const flag of Object.keys(LIMIT_FLAGS) as (keyof typeof LIMIT_FLAGS)[]) {
    const text = values[flag]
    if (text === undefined) continue
    const key = FLAG_TO_LIMIT[flag]
    const spec = LIMIT_SPECS[key]
    const n = parseQuantity(text, spec.unit)
    const problem = Number.isNaN(n)
      ? `must be a number${spec.unit === 'bytes' ? ' of bytes (suffixes k, M, G: 4MiB)' : spec.unit === 'ms' ? ' of milliseconds (or 30s, 5m)' : ''}`
      : limitProblem(key, n)
    if (problem) throw new UsageError(`--${flag} ${problem.replace(/, got .*$/, '')}, got "${text}"`)
    limits[key] = Math.min(n, spec.max)
  }
  return limits
}

/** `apply` is the default and stays implicit. */
export function stagingFromFlags(values: StagingFlagValues): 'dry-run' | 'atomic' | undefined {
  if (values['dry-run'] && values.atomic) throw new UsageError('--dry-run and --atomic exclude each other (a dry run applies nothing)')
  return values['dry-run'] ? 'dry-run' : values.atomic ? 'atomic' : undefined
}

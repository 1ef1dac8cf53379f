/**
 * `--store URL` and its knobs (`--store-lease 15s --store-wait 30s --store-event-ttl 1h --store-session-ttl 24h
 * --store-max-events 1000`) → `createRuntime({ store })`: a URL alone, or the options of a `PostgresStore`.
 * Nonsense is a usage error naming the flag.
 */
import type { ParseArgsConfig } from 'node:util'
import type { PostgresStoreOptions } from '../runtime/store/postgres/postgres-store.js'
import type { FlagValues } from './flag-values.js'
import { parseQuantity } from './limit-flags.js'
import { UsageError } from './usage-error.js'

export const STORE_FLAGS = {
  store: { type: 'string' },
  'store-lease': { type: 'string' },
  'store-wait': { type: 'string' },
  'store-event-ttl': { type: 'string' },
  'store-session-ttl': { type: 'string' },
  'store-max-events': { type: 'string' },
} satisfies ParseArgsConfig['options']

type StoreFlagValues = FlagValues<typeof STORE_FLAGS>

const KNOBS = {
  'store-lease': { key: 'leaseMs', unit: 'ms' },
  'store-wait': { key: 'waitMs', unit: 'ms' },
  'store-event-ttl': { key: 'eventTtlMs', unit: 'ms' },
  'store-session-ttl': { key: 'sessionTtlMs', unit: 'ms' },
  'store-max-events': { key: 'maxEventsPerSession', unit: 'count' },
} as const

/** The store the flags (or `$CODEACT_STORE`) name; undefined: the embedded default. */
export function storeFromFlags(values: StoreFlagValues, env: string | undefined): string | PostgresStoreOptions | undefined {
  const url = values.store ?? (env || undefined)
  if (url !== undefined && url !== 'embedded' && !/^postgres(ql)?:\/\/./.test(url))
    throw new UsageError(`--store needs a postgres://… URL (or embedded), got "${url.replace(/:[^:@/]*@/, ':***@')}"`)
  const options: Partial<PostgresStoreOptions> = {}
  for (const [flag, spec] of Object.entries(KNOBS) as [keyof typeof KNOBS, (typeof KNOBS)[keyof typeof KNOBS]][]) {
    const text = values[flag]
    if (text === undefined) continue
    if (url === undefined || url === 'embedded') throw new UsageError(`--${flag} applies to a shared store: add --store postgres://…`)
    const n = parseQuantity(text, spec.unit)
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(
        `--${flag} must be a whole number${spec.unit === 'ms' ? ' of milliseconds (or 30s, 5m, 1h)' : ''} of at least 1, got "${text}"`,
      )
    options[spec.key] = n
  }
  if (url === undefined || Object.keys(options).length === 0) return url
  return { ...options, url }
}

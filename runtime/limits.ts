import type { Limits } from '../vocabulary/types.js'

/** Defaults a user would expect of a code runner: 30 s, 128 MB, 1 MiB of console output. */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  timeoutMs: 30_000,
  deadlineMs: 600_000,
  memoryMb: 128,
  maxOutputBytes: 1024 * 1024,
  maxToolCalls: 1_000,
  maxParallelToolCalls: 10,
  maxObservationBytes: 32 * 1024,
  maxSourceBytes: 512 * 1024,
})

/** Merges user limits over the defaults, refusing values that make no sense (API misuse throws). */
export function resolveLimits(partial: Partial<Limits> | undefined, base: Limits = DEFAULT_LIMITS): Limits {
  const limits = { ...base, ...partial }
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`codeact: limits.${key} must be a positive number, got ${String(value)}`)
    }
  }
  if (limits.memoryMb < 8) throw new TypeError('codeact: limits.memoryMb must be at least 8')
  return limits
}

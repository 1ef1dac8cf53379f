/** What every bench suite measures with: percentiles, a timer that refuses fast failures, RSS of a pid. */
import { readFileSync } from 'node:fs'

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

export const median = (samples: readonly number[]) => percentile(samples, 50)

export const round = (n: number, digits = 3) => Number(n.toFixed(digits))

/** Milliseconds `fn` took; an outcome `{ ok: false }` is a failure, not a measurement. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  const result = await fn()
  const elapsed = performance.now() - start
  if (typeof result === 'object' && result !== null && 'ok' in result && result.ok === false) {
    throw new Error(`bench run failed: ${JSON.stringify(result).slice(0, 400)}`)
  }
  return elapsed
}

export async function sample(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await time(fn))
  return out
}

/** Resident memory of a process in MB (Linux /proc), or NaN. */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? Number.NaN : Number(kb) / 1024
  } catch {
    return Number.NaN
  }
}

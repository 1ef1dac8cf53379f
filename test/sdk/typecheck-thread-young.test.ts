/**
 * The checker thread's young generation: a process that checks programs gets threads with V8's default
 * young generation (a check allocates MBs of short-lived types; capped at 4 MB the scavenger ran inside every
 * check and promoted what it still held), while a process that only prepares check-off programs keeps its
 * threads capped at 4 MB (their traffic is small parses; RSS matters there). Each case in a fresh process,
 * because the pool is per process and decides when it starts a thread.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { poolYoungGenerations } from '../../program/typecheck-pool.js'

const POOL = new URL('../../dist/program/typecheck-pool.js', import.meta.url).href

/** Starts the pool the way `mode` does, then prints the young generation of each thread it started. */
function youngGenerations(mode: 'check' | 'prepare'): Array<NonNullable<ReturnType<typeof poolYoungGenerations>[number]> | 'default'> {
  const script = `
    const pool = await import(${JSON.stringify(POOL)})
    if (${JSON.stringify(mode)} === 'check') await pool.warmPool('interface Tools {}\\ndeclare const tools: Tools')
    else await pool.checkInPool(undefined, 'return 1', 5000, { allowNodeImports: false, compile: true })
    console.log(JSON.stringify(pool.poolYoungGenerations().map((y) => y ?? 'default')))
    process.exit(0)
  `
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
}

describe("the checker thread's young generation", () => {
  it("is V8's default in a process that checks programs", () => {
    expect(youngGenerations('check')).toEqual(['default'])
  }, 60_000)

  it('stays capped at 4 MB in a process that only prepares check-off programs', () => {
    expect(youngGenerations('prepare')).toEqual([4])
  }, 60_000)
})

/**
 * The price comparison (examples/price-compare.ts, 8 calls) through the type check alone: what the check adds
 * to a run, without the run. The checker thread's request with the check on against the same request with it
 * off (normalise + shape only), interleaved in blocks, and the warm check in this thread with its CPU time.
 * Each run's text is new (a numbered comment), so nothing answers from a cache of its own.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { renderDeclarations } from '../sdk/declarations.js'
import { createTypeChecker } from '../program/typecheck.js'
import { createProgramPrep, createTypecheck } from '../runtime/typecheck.js'
import type { ToolDefinition } from '../vocabulary/types.js'
import { percentile, round } from './measure.js'
import type { BenchRow } from './types.js'

const BLOCKS = 8
const BLOCK = 10

/** The example's four tools (bench/runtime.ts runs them): only their declarations matter here. */
function priceDeclarations(): string {
  const tools = [
    {
      name: 'list_shops',
      description: 'Lists the shops that can be compared.',
      parameters: z.object({}),
      output: z.array(z.object({ shop: z.string(), currency: z.string() })),
    },
    {
      name: 'lookup_price',
      description: "A shop's net price for a product.",
      parameters: z.object({ shop: z.string(), product: z.enum(['laptop', 'phone', 'headphones']) }),
      output: z.object({ shop: z.string(), currency: z.string(), net: z.number() }),
    },
    {
      name: 'lookup_rates',
      description: 'Exchange rates.',
      parameters: z.object({ base: z.string().length(3) }),
      output: z.record(z.string(), z.number()),
    },
    {
      name: 'convert_and_tax',
      description: 'Adds VAT and converts.',
      parameters: z.object({ amount: z.number(), currency: z.string().length(3), to: z.string().length(3), rate: z.number().positive() }),
      output: z.object({ gross: z.number(), currency: z.string() }),
    },
  ]
  return renderDeclarations(tools.map((t): ToolDefinition => ({ ...t, execute: () => null })))
}

export async function priceRows(): Promise<BenchRow[]> {
  const repo = fileURLToPath(new URL('../..', import.meta.url))
  const program = readFileSync(`${repo}examples/price-compare.ts`, 'utf8')
  const declarations = priceDeclarations()
  const on = createTypecheck('error', () => declarations)
  if (on === undefined) return []
  const off = createProgramPrep()
  await on.warm()
  let n = 0
  const text = () => `${program}\n// run ${n++}`
  for (let i = 0; i < 20; i++) {
    await on.prepare(text(), false)
    await off.prepare(text(), false)
  }
  const onMs: number[] = []
  const offMs: number[] = []
  for (let b = 0; b < BLOCKS; b++) {
    for (const [samples, prep] of b % 2 === 0
      ? ([
          [onMs, on],
          [offMs, off],
        ] as const)
      : ([
          [offMs, off],
          [onMs, on],
        ] as const)) {
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now()
        const prepared = await prep.prepare(text(), false)
        samples.push(performance.now() - t0)
        if (prepared.normalised === undefined || (prepared.outcome?.count ?? 0) > 0)
          throw new Error('price program did not prepare cleanly')
      }
    }
  }
  const local = createTypeChecker()
  local.setDeclarations(declarations)
  for (let i = 0; i < 50; i++) local.check(text())
  const wall: number[] = []
  const before = process.cpuUsage()
  for (let i = 0; i < BLOCKS * BLOCK; i++) {
    const t0 = performance.now()
    local.check(text())
    wall.push(performance.now() - t0)
  }
  const cpu = process.cpuUsage(before)
  const offName = 'price comparison: prepare in the checker thread, check off (normalise + shape)'
  return [
    { name: offName, p50Ms: round(percentile(offMs, 50), 2), p95Ms: round(percentile(offMs, 95), 2), note: `${offMs.length} requests` },
    {
      name: 'price comparison: prepare in the checker thread, check on (normalise + shape + check)',
      p50Ms: round(percentile(onMs, 50), 2),
      p95Ms: round(percentile(onMs, 95), 2),
      baseline: offName,
      note: `interleaved in blocks of ${BLOCK}; p50 difference ${round(percentile(onMs, 50) - percentile(offMs, 50), 2)} ms = what the check adds to a run`,
    },
    {
      name: 'price comparison: warm check in this thread (resident checker)',
      p50Ms: round(percentile(wall, 50), 2),
      p95Ms: round(percentile(wall, 95), 2),
      note: `CPU mean ${round((cpu.user + cpu.system) / 1000 / wall.length, 2)} ms per check`,
    },
  ]
}

/**
 * The realistic program of bench/runtime.ts: the price comparison (examples/price-compare.ts, 8 calls) with the
 * type check on against off, and the floor of "check on": for a program whose first statement is a call nothing
 * of the run can overlap the check (a failing program must reach no tool), so a checked run costs at least the
 * unchecked run plus the check alone. The check alone is measured in the same blocks with the runtime's checker
 * (TypeScript 6, resident, in this thread) and with TypeScript 7's native checker (native-check.ts).
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { createRuntime, type Runtime } from '../runtime/index.js'
import { createIsolateSandbox } from '../sandbox/isolate/index.js'
import type { Sandbox } from '../sandbox/types.js'
import { createTypeChecker } from '../program/typecheck.js'
import type { AnyToolDefinition } from '../vocabulary/types.js'
import { IpcPeer } from './floors.js'
import { median, percentile, round, time } from './measure.js'
import { nativeChecker } from './native-check.js'
import type { BenchRow } from './types.js'

const OFF = 'price comparison (8 calls), type check off'
/** When the program's first call (list_shops) reached its tool: what of a run comes before any call. */
let firstCallAt = 0
const stats = (s: number[]) => ({ p50Ms: round(median(s)), p95Ms: round(percentile(s, 95)) })

/** The example's four tools (examples/tools.ts) without its simulated 20 ms latency: the program's 8 calls, nothing else. */
function priceTools(): AnyToolDefinition[] {
  const rates: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 151.2 }
  const shops: Record<string, { currency: string; net: number }> = {
    'berlin-electro': { currency: 'EUR', net: 1149 },
    'london-gadgets': { currency: 'GBP', net: 989 },
    'tokyo-denki': { currency: 'JPY', net: 172000 },
  }
  return [
    {
      name: 'list_shops',
      description: 'Lists the shops that can be compared.',
      parameters: z.object({}),
      output: z.array(z.object({ shop: z.string(), currency: z.string() })),
      execute: () => {
        firstCallAt = performance.now()
        return Object.entries(shops).map(([shop, s]) => ({ shop, currency: s.currency }))
      },
    },
    {
      name: 'lookup_price',
      description: "A shop's net price for a product.",
      parameters: z.object({ shop: z.string(), product: z.enum(['laptop', 'phone', 'headphones']) }),
      output: z.object({ shop: z.string(), currency: z.string(), net: z.number() }),
      execute: ({ shop }: { shop: string }) => ({ shop, currency: shops[shop]!.currency, net: shops[shop]!.net }),
    },
    {
      name: 'lookup_rates',
      description: 'Exchange rates.',
      parameters: z.object({ base: z.string().length(3) }),
      output: z.record(z.string(), z.number()),
      execute: () => rates,
    },
    {
      name: 'convert_and_tax',
      description: 'Adds VAT and converts.',
      parameters: z.object({ amount: z.number(), currency: z.string().length(3), to: z.string().length(3), rate: z.number().positive() }),
      output: z.object({ gross: z.number(), currency: z.string() }),
      execute: ({ amount, rate, to }: { amount: number; rate: number; to: string }) => ({ gross: amount * 1.2 * rate, currency: to }),
    },
  ] as AnyToolDefinition[]
}

export async function priceComparisonRows(repo: string, mustRun: (rt: Runtime, code: string) => Promise<void>): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  // The realistic program: 8 calls, the type check on against off, interleaved in blocks. Every run's text is
  // new (a numbered comment), so no cache keyed by the program's text (V8's script cache in the child, any
  // other) can answer for either side.
  const program = readFileSync(`${repo}examples/price-compare.ts`, 'utf8')
  let serial = 0
  const priceText = () => `${program}\n// run ${serial++}`
  const on = await createRuntime({ tools: priceTools(), typecheck: 'error' })
  const off = await createRuntime({ tools: priceTools(), typecheck: 'off' })
  // The same isolate backend said to have effects of its own: the check comes before the run, as before the overlap.
  const isolate = createIsolateSandbox()
  const sequential: Sandbox = {
    name: isolate.name,
    capabilities: { ...isolate.capabilities, effectsOnlyThroughHost: false },
    start: () => isolate.start(),
    run: (q, h, s) => isolate.run(q, h, s),
    close: () => isolate.close(),
    // It declares the isolate's sessions, so it must end them too (runtime/choose-sandbox.ts refuses it otherwise).
    endSession: (id) => isolate.endSession(id),
  }
  const seq = await createRuntime({ tools: priceTools(), typecheck: 'error', sandbox: sequential })
  // The check alone: the runtime's checker in this thread (its thread has done as many checks: on and seq
  // each check every run), and TypeScript 7's native one, both over the same texts in the same blocks.
  const ts6 = createTypeChecker()
  ts6.setDeclarations(on.sdk.declarations())
  const native = nativeChecker(on.sdk.declarations())
  const checkAlone = (check: (text: string) => number, text: string) =>
    time(async () => {
      if (check(text) !== 0) throw new Error('the price program did not check clean')
    })
  try {
    // Both checkers must see a type error where there is one, or their figures prove nothing.
    const wrong = `${program}\nconst n: number = 'x'`
    if (ts6.check(wrong).length === 0 || native.check(wrong).length === 0) throw new Error('a checker missed a type error')
    for (let i = 0; i < 20; i++) {
      for (const rt of [on, seq, off]) await mustRun(rt, priceText())
      ts6.check(priceText())
      native.check(priceText())
    }
    const onMs: number[] = []
    const offMs: number[] = []
    const seqMs: number[] = []
    const ts6Ms: number[] = []
    const nativeMs: number[] = []
    const beforeCallMs: number[] = []
    for (let block = 0; block < 12; block++) {
      const order = [
        [on, seq, off],
        [off, seq, on],
        [seq, on, off],
        [off, on, seq],
      ][block % 4]!
      for (const rt of order) {
        const samples = rt === on ? onMs : rt === seq ? seqMs : offMs
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now()
          samples.push(await time(() => mustRun(rt, priceText())))
          if (rt === off) beforeCallMs.push(firstCallAt - t0)
        }
      }
      for (let i = 0; i < 10; i++) {
        ts6Ms.push(await checkAlone((t) => ts6.check(t).length, priceText()))
        nativeMs.push(await checkAlone((t) => native.check(t).length, priceText()))
      }
    }
    rows.push({ name: OFF, ...stats(offMs), note: 'a new program text each run' })
    rows.push({
      name: 'price comparison (8 calls), type check on',
      ...stats(onMs),
      baseline: OFF,
      goal: '≤ 1.4×',
      note: `interleaved in blocks of 10; p50 difference ${round(median(onMs) - median(offMs), 2)} ms = what the check adds to a run`,
    })
    rows.push({
      name: '… type check on, not overlapped (checked before the run starts)',
      ...stats(seqMs),
      baseline: OFF,
      note: `interleaved with the two above; the overlap saves ${round(median(seqMs) - median(onMs), 2)} ms at p50 (its first statement is a call: only the start-up to it overlaps)`,
    })
    rows.push({
      name: '  the check alone: TypeScript 6, resident checker (the runtime’s), in this thread',
      ...stats(ts6Ms),
      note: 'the same texts, in the same blocks',
    })
    rows.push({
      name: '  the check alone: TypeScript 7’s native checker (tsgo, its own process, synchronous API)',
      ...stats(nativeMs),
      note: 'no JIT to warm: what a check costs with the checker’s own speed out of the question (bench/native-check.ts)',
    })
    // A failing program must reach no tool, so the check can overlap only what the run does before its first
    // call (prepare, the hop, the isolate's start): the rest of a checked run comes after the verdict.
    const fastest = Math.min(median(ts6Ms), median(nativeMs))
    const overlap = median(beforeCallMs)
    rows.push({
      name: 'floor of check on: check off + the faster check alone − the off run’s time before its first call',
      p50Ms: round(median(offMs) + Math.max(0, fastest - overlap)),
      baseline: OFF,
      note: `before the first call ${round(overlap, 2)} ms of the off run (p50): all that a check can hide behind`,
    })
    // What an agent harness sees: the same program after the process sat idle for a second (a model thinking
    // between runs). Its floor is a bare IPC round trip after the same idle second, beside one back to back:
    // this VM is slow to wake an idle core, and a run pays that at each of its hops.
    const peer = new IpcPeer()
    try {
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
      const spaced: number[] = []
      const ipcSpaced: number[] = []
      for (let i = 0; i < 8; i++) {
        await pause(1000)
        spaced.push(await time(() => mustRun(off, priceText())))
        await pause(1000)
        ipcSpaced.push(await peer.roundTrips(1))
      }
      const ipcBusy: number[] = []
      for (let i = 0; i < 50; i++) ipcBusy.push(await peer.roundTrips(1))
      rows.push({
        name: 'price comparison (8 calls), type check off, after 1 s idle (a model thinking between runs)',
        ...stats(spaced),
        baseline: OFF,
        note: `8 runs; a bare IPC round trip after the same idle second ${round(median(ipcSpaced) * 1000, 0)} µs, back to back ${round(median(ipcBusy) * 1000, 0)} µs`,
      })
    } finally {
      peer.close()
    }
  } finally {
    native.close()
    await on.close()
    await off.close()
    await seq.close()
  }
  return rows
}

/**
 * The runtime end to end (`createRuntime` → `runCode`: compile + sandbox + result), beside the naive ways
 * to get a clean realm per run, measured in the same process and the same minute:
 *   warm and cold runCode of a trivial program  vs  a fresh worker_threads Worker / a fresh Node process,
 *   per-call overhead of 10,000 sequential tool calls in one program,
 *   a batch of 100 no-op calls on the native path (executeToolCalls) vs the same 100 calls in one program,
 *   runs per second with 8 runs in flight.
 */
import { spawn } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import { createRuntime, type Runtime } from '../runtime/index.js'
import type { AnyToolDefinition } from '../vocabulary/types.js'
import type { BenchRow } from './types.js'

const TRIVIAL = 'return 1 + 1'
const noop: AnyToolDefinition = { name: 'noop', description: 'Does nothing.', parameters: { type: 'object' }, execute: () => null }

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
function stats(name: string, samples: number[], extra: Partial<BenchRow> = {}): BenchRow {
  return { name, p50Ms: percentile(samples, 50), p95Ms: percentile(samples, 95), ...extra }
}
async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}
async function sample(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await time(fn))
  return out
}
async function mustRun(rt: Runtime, code: string): Promise<void> {
  const r = await rt.runCode(code)
  if (!r.ok) throw new Error(`bench program failed: ${r.observation}`)
}

function freshWorker(): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker('require("node:worker_threads").parentPort.postMessage(1 + 1)', { eval: true })
    w.once('message', () => void w.terminate().then(() => resolve()))
    w.once('error', reject)
  })
}
function freshProcess(): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', 'process.stdout.write(String(1 + 1))'], { stdio: ['ignore', 'pipe', 'inherit'] })
    p.once('error', reject)
    p.once('close', () => resolve())
  })
}

export default async function runtimeBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const rt = await createRuntime({ tools: [noop], typecheck: 'off', limits: { maxToolCalls: 20_000, timeoutMs: 120_000 } })
  try {
    await rt.sandbox.start()
    for (let i = 0; i < 20; i++) await mustRun(rt, TRIVIAL)

    // Baselines first, so every ratio compares figures taken on the same machine moments apart.
    rows.push(stats('baseline: fresh worker_threads Worker per run', await sample(30, freshWorker)))
    rows.push(stats('baseline: fresh Node child process per run', await sample(15, freshProcess)))

    const warm = await sample(200, () => mustRun(rt, TRIVIAL))
    rows.push(
      stats('runCode warm, trivial program (compile + run + result)', warm, {
        baseline: 'baseline: fresh worker_threads Worker per run',
        goal: 'p50 well under a fresh Worker',
      }),
    )

    const cold = await sample(6, async () => {
      const fresh = await createRuntime({ typecheck: 'off' })
      await mustRun(fresh, TRIVIAL)
      await fresh.close()
    })
    rows.push(stats('runCode cold (new runtime, new sandbox process)', cold, { baseline: 'baseline: fresh Node child process per run' }))

    // 10,000 sequential calls in one program, minus the trivial run: what one `await tools.x()` costs.
    const warmP50 = percentile(warm, 50)
    const perCall = (await sample(3, () => mustRun(rt, 'for (let i = 0; i < 10_000; i++) await tools.noop({})'))).map(
      (ms) => ((ms - warmP50) / 10_000) * 1000,
    )
    rows.push({
      name: 'tool call from a program, sequential (10,000 in one run)',
      value: percentile(perCall, 50),
      unit: 'µs/call',
      note: `p95 ${percentile(perCall, 95).toFixed(1)} µs over 3 runs`,
    })

    // The same 100 no-op calls, as one native batch and as one program.
    const batch = Array.from({ length: 100 }, (_, i) => ({
      id: `c${i}`,
      type: 'function' as const,
      function: { name: 'noop', arguments: '{}' },
    }))
    const native = (await sample(30, () => rt.executeToolCalls(batch))).map((ms) => (ms / 100) * 1000)
    const inProgram = (await sample(30, () => mustRun(rt, 'await Promise.all(Array.from({ length: 100 }, () => tools.noop({})))'))).map(
      (ms) => (ms / 100) * 1000,
    )
    rows.push({
      name: '100 no-op calls as one program (run_code), per call',
      value: percentile(inProgram, 50),
      unit: 'µs/call',
      note: `p95 ${percentile(inProgram, 95).toFixed(1)} µs`,
    })
    rows.push({
      name: '100 no-op calls as a native batch (executeToolCalls), per call',
      value: percentile(native, 50),
      unit: 'µs/call',
      baseline: '100 no-op calls as one program (run_code), per call',
      note: `p95 ${percentile(native, 95).toFixed(1)} µs`,
    })

    // Saturation: 8 runs in flight for ~4 s.
    let done = 0
    const until = performance.now() + 4000
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < until) {
          await mustRun(rt, TRIVIAL)
          done++
        }
      }),
    )
    const perSecond = done / ((performance.now() - t0) / 1000)
    const workerPerSecond = 1000 / percentile(rows[0]!.p50Ms !== undefined ? [rows[0]!.p50Ms] : [NaN], 50)
    rows.push({ name: 'baseline: fresh Workers per second (from its p50, sequential)', value: workerPerSecond, unit: 'runs/s' })
    rows.push({
      name: 'runs per second, 8 in flight (trivial program)',
      value: perSecond,
      unit: 'runs/s',
      baseline: 'baseline: fresh Workers per second (from its p50, sequential)',
    })

    // The same with each lane its own caller: 8 processes, none shared (what isolation costs end to end).
    for (let i = 0; i < 8; i++) for (let k = 0; k < 5; k++) await rt.runCode(TRIVIAL, { caller: `lane-${i}` })
    let doneByCallers = 0
    const t1 = performance.now()
    const until1 = t1 + 4000
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        while (performance.now() < until1) {
          const r = await rt.runCode(TRIVIAL, { caller: `lane-${i}` })
          if (!r.ok) throw new Error(`bench program failed: ${r.observation}`)
          doneByCallers++
        }
      }),
    )
    const perSecondByCallers = doneByCallers / ((performance.now() - t1) / 1000)
    rows.push({
      name: 'runs per second, 8 in flight, 8 callers (a process each)',
      value: perSecondByCallers,
      unit: 'runs/s',
      baseline: 'runs per second, 8 in flight (trivial program)',
      note: 'the cost of never sharing a process between callers',
    })
  } finally {
    await rt.close()
  }
  return rows
}

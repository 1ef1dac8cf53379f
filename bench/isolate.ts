/**
 * The isolate backend, end to end through the Sandbox interface (caller -> child process -> isolate):
 * a warm run of a trivial program against a fresh worker_threads Worker per run (the naive way to get a
 * clean realm), a cold run (new sandbox, new child), and the cost of one sequential tool call against a
 * bare IPC round trip between two Node processes measured in the same run; and throughput with 8 runs in
 * flight for one caller (one process) against 8 callers (8 processes) and a process per run: what isolating
 * callers from each other costs.
 */
import { spawn } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import type { LogEntry } from '../vocabulary/types.js'
import { createIsolateSandbox, type IsolateSandboxOptions } from '../sandbox/isolate/index.js'
import type { SandboxHost, SandboxRunRequest } from '../sandbox/types.js'
import type { BenchRow } from './types.js'

const WARM_RUNS = 300
const COLD_RUNS = 8
const WORKER_RUNS = 30
const CALLS = 10_000

const host: SandboxHost = {
  callTool: async () => '{"ok":true,"value":null}',
  log: (_: LogEntry[]) => {},
}
const never = new AbortController().signal

function request(body: string): SandboxRunRequest {
  return {
    runId: 'bench',
    js: `(async function (tools, ToolCallError, console) {"use strict";\n${body}\n})`,
    toolNames: ['noop'],
    limits: { timeoutMs: 60_000, memoryMb: 128, maxOutputBytes: 1 << 20 },
  }
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

const round = (n: number, digits = 3) => Number(n.toFixed(digits))

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  const result = await fn()
  const elapsed = performance.now() - start
  // A fast failure is not a measurement.
  if (typeof result === 'object' && result !== null && 'ok' in result && result.ok === false) {
    throw new Error(`bench run failed: ${JSON.stringify(result)}`)
  }
  return elapsed
}

async function warmRuns(): Promise<{ samples: number[]; perCallUs: number }> {
  const sandbox = createIsolateSandbox()
  await sandbox.start()
  const trivial = request('return 1')
  for (let i = 0; i < 30; i++) await sandbox.run(trivial, host, never)
  const samples: number[] = []
  for (let i = 0; i < WARM_RUNS; i++) samples.push(await time(() => sandbox.run(trivial, host, never)))
  const loop = request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop()`)
  await sandbox.run(loop, host, never)
  const loopMs = Math.min(await time(() => sandbox.run(loop, host, never)), await time(() => sandbox.run(loop, host, never)))
  await sandbox.close()
  return { samples, perCallUs: ((loopMs - percentile(samples, 50)) / CALLS) * 1000 }
}

async function coldRuns(): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < COLD_RUNS; i++) {
    samples.push(
      await time(async () => {
        const sandbox = createIsolateSandbox()
        const outcome = await sandbox.run(request('return 1'), host, never)
        await sandbox.close()
        return outcome
      }),
    )
  }
  return samples
}

/** The baseline: a fresh Worker per run, evaluating the same trivial program and posting its value. */
async function workerRuns(): Promise<number[]> {
  const source = `const { parentPort } = require('node:worker_threads');
    (async function () { return 1 })().then((v) => parentPort.postMessage(JSON.stringify(v)))`
  const samples: number[] = []
  for (let i = 0; i < WORKER_RUNS + 3; i++) {
    const ms = await time(
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(source, { eval: true, env: {} })
          worker.once('message', () => void worker.terminate().then(() => resolve()))
          worker.once('error', reject)
        }),
    )
    if (i >= 3) samples.push(ms)
  }
  return samples
}

/** The floor for a tool call: one message each way between two Node processes over IPC. */
async function ipcRoundTripUs(): Promise<number> {
  const child = spawn(process.execPath, ['-e', "process.on('message', (m) => process.send(m))"], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    env: {},
  })
  const roundTrips = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await new Promise<void>((resolve) => {
        child.once('message', () => resolve())
        child.send({ t: 'result', id: 1, callId: i, text: '{"ok":true,"value":null}' })
      })
    }
  }
  await roundTrips(500)
  const ms = await time(() => roundTrips(CALLS))
  child.kill()
  return (ms / CALLS) * 1000
}

/** Runs per second with 8 runs in flight for ~3 s, each of the 8 lanes as `callerOf(lane)`. */
async function throughput(callerOf: (lane: number) => string | undefined, options: IsolateSandboxOptions = {}): Promise<number> {
  const sandbox = createIsolateSandbox(options)
  await sandbox.start()
  const trivial = request('return 1')
  const lane = (i: number) => ({ ...trivial, ...(callerOf(i) !== undefined ? { callerId: callerOf(i)! } : {}) })
  // Warm every lane's process first: the figure is steady-state throughput, not spawn time.
  for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 8 }, (_, i) => sandbox.run(lane(i), host, never)))
  let done = 0
  const t0 = performance.now()
  const until = t0 + 3000
  await Promise.all(
    Array.from({ length: 8 }, async (_, i) => {
      while (performance.now() < until) {
        const outcome = await sandbox.run(lane(i), host, never)
        if (!outcome.ok) throw new Error(`bench run failed: ${JSON.stringify(outcome)}`)
        done++
      }
    }),
  )
  const perSecond = done / ((performance.now() - t0) / 1000)
  await sandbox.close()
  return perSecond
}

export default async function bench(): Promise<BenchRow[]> {
  const workers = await workerRuns()
  const warm = await warmRuns()
  const cold = await coldRuns()
  const ipcUs = await ipcRoundTripUs()
  const oneCaller = await throughput(() => undefined)
  const eightCallers = await throughput((i) => `caller-${i}`)
  const perRun = await throughput(() => undefined, { isolation: 'run' })
  const workerP50 = percentile(workers, 50)
  const warmP50 = percentile(warm.samples, 50)
  return [
    { name: 'fresh worker_threads Worker per run, trivial program', p50Ms: round(workerP50), p95Ms: round(percentile(workers, 95)) },
    {
      name: 'warm run, trivial program (isolate)',
      p50Ms: round(warmP50),
      p95Ms: round(percentile(warm.samples, 95)),
      baseline: 'fresh worker_threads Worker per run, trivial program',
      goal: 'p50 ≤ 3 ms, ≥ 20× faster than the baseline',
      note: `${round(workerP50 / warmP50, 1)}× faster than a fresh Worker`,
    },
    {
      name: 'cold run: new sandbox (child process + isolate), trivial program, close',
      p50Ms: round(percentile(cold, 50)),
      p95Ms: round(percentile(cold, 95)),
    },
    { name: 'IPC round trip between two Node processes', value: round(ipcUs, 1), unit: 'µs' },
    {
      name: `sequential tool call, ${CALLS} × tools.noop() in one run (isolate)`,
      value: round(warm.perCallUs, 1),
      unit: 'µs per call',
      baseline: 'IPC round trip between two Node processes',
      goal: '≤ 150 µs per call',
    },
    { name: 'runs/s, 8 in flight, one caller (one process)', value: round(oneCaller, 0), unit: 'runs/s' },
    {
      name: 'runs/s, 8 in flight, 8 callers (8 processes)',
      value: round(eightCallers, 0),
      unit: 'runs/s',
      baseline: 'runs/s, 8 in flight, one caller (one process)',
      // Positive: what never sharing a process costs; negative: the one process was the bottleneck.
      note: `isolating callers ${eightCallers <= oneCaller ? `costs ${round((1 - eightCallers / oneCaller) * 100, 0)}%` : `gains ${round((eightCallers / oneCaller - 1) * 100, 0)}%`} of throughput`,
    },
    {
      name: "runs/s, 8 in flight, a process per run (isolation: 'run')",
      value: round(perRun, 1),
      unit: 'runs/s',
      baseline: 'runs/s, 8 in flight, one caller (one process)',
    },
  ]
}

/**
 * The isolate backend, end to end through the Sandbox interface (caller -> child process -> isolate), each
 * figure beside its floor from the same run (floors.ts): a warm trivial run against isolated-vm in this
 * process, split into the child's own time and the hop; a cold run against a fresh child; one sequential
 * tool call against a bare IPC round trip measured interleaved with it (both see the same core state);
 * throughput with 8 runs in flight for one caller (one process), 8 callers (8 processes) and a process
 * per run: what isolating callers from each other costs; and `new URL(...)` in a loop inside a run beside
 * the same loop building a plain object (each URL is one synchronous call of the host's parser).
 */
import { readFileSync } from 'node:fs'
import type { LogEntry } from '../vocabulary/types.js'
import { createIsolateSandbox, type IsolateSandboxOptions } from '../sandbox/isolate/index.js'
import { resolveChildEntry } from '../sandbox/isolate/child-path.js'
import { DEFAULT_CHILD_CONFIG, type FromChild, M } from '../sandbox/isolate/protocol.js'
import { SupervisedChild } from '../sandbox/isolate/supervisor.js'
import type { SandboxHost, SandboxRunRequest } from '../sandbox/types.js'
import { FramePeer, freshChild, freshWorker, IpcPeer, ivmInHost } from './floors.js'
import { median, percentile, round, sample, time } from './measure.js'
import type { BenchRow } from './types.js'

const WARM_RUNS = 300
const COLD_RUNS = 8
const CALLS = 1000
const ROUNDS = 7

const host: SandboxHost = {
  callTool: async () => '{"ok":true,"value":null}',
  log: (_: LogEntry[]) => {},
}
const never = new AbortController().signal

function request(body: string): SandboxRunRequest {
  return {
    runId: 'bench',
    js: `(async function () {"use strict";\n${body}\n})`,
    toolNames: ['noop'],
    limits: { timeoutMs: 60_000, memoryMb: 128, maxOutputBytes: 1 << 20 },
  }
}

/**
 * Warm trivial runs, and per-call cost interleaved with bare IPC round trips (ROUNDS × (CALLS round trips,
 * one run of CALLS sequential calls, one run of CALLS calls in parallel)).
 */
async function warmRuns(): Promise<{ samples: number[]; perCallUs: number[]; parallelUs: number[]; ipcUs: number[]; frameUs: number[] }> {
  const sandbox = createIsolateSandbox()
  await sandbox.start()
  const trivial = request('return 1')
  for (let i = 0; i < 30; i++) await sandbox.run(trivial, host, never)
  const samples = await sample(WARM_RUNS, () => sandbox.run(trivial, host, never))
  const trivialMs = median(samples)
  const loop = request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop()`)
  const fanOut = request(`await Promise.all(Array.from({ length: ${CALLS} }, () => tools.noop()))`)
  const peer = new IpcPeer()
  const framed = new FramePeer()
  await peer.roundTrips(200)
  await framed.roundTrips(200)
  await sandbox.run(loop, host, never)
  await sandbox.run(fanOut, host, never)
  const perCallUs: number[] = []
  const parallelUs: number[] = []
  const ipcUs: number[] = []
  const frameUs: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    ipcUs.push(((await peer.roundTrips(CALLS)) / CALLS) * 1000)
    frameUs.push(((await framed.roundTrips(CALLS)) / CALLS) * 1000)
    perCallUs.push((((await time(() => sandbox.run(loop, host, never))) - trivialMs) / CALLS) * 1000)
    parallelUs.push((((await time(() => sandbox.run(fanOut, host, never))) - trivialMs) / CALLS) * 1000)
  }
  peer.close()
  framed.close()
  await sandbox.close()
  return { samples, perCallUs, parallelUs, ipcUs, frameUs }
}

/** A warm trivial run sent straight to a child: its round trip, and the child's own time for it (the rest is the hop). */
export async function childSplit(runs: number): Promise<{ roundTrip: number[]; inChild: number[] }> {
  const entry = resolveChildEntry()
  if (!entry.ok) throw new Error(entry.message)
  let answer: ((m: FromChild) => void) | undefined
  const child = await SupervisedChild.spawn(entry.path, DEFAULT_CHILD_CONFIG, {
    message: (m) => answer?.(m),
    exit: () => {},
  })
  if (typeof child === 'string') throw new Error(child)
  const { js, toolNames, limits } = request('return 1')
  const deadline = { ...limits, deadlineMs: 60_000 }
  let id = 0
  const once = () =>
    new Promise<number | undefined>((resolve) => {
      answer = (m) => m[0] === M.done && resolve(m[4])
      child.send([M.run, ++id, js, [...toolNames], deadline, undefined, undefined])
    })
  for (let i = 0; i < 30; i++) await once()
  const roundTrip: number[] = []
  const inChild: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    const ms = await once()
    roundTrip.push(performance.now() - start)
    inChild.push(ms ?? Number.NaN)
  }
  child.kill()
  await child.closed
  return { roundTrip, inChild }
}

async function coldRuns(): Promise<number[]> {
  return sample(COLD_RUNS, async () => {
    const sandbox = createIsolateSandbox()
    const outcome = await sandbox.run(request('return 1'), host, never)
    await sandbox.close()
    return outcome
  })
}

/** CPU time (ms) a thread has used: /proc/<pid>/task/<tid>/stat utime + stime (Linux; NaN elsewhere). */
function threadCpuMs(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

/** CPU time (ms) of processes: all their threads, and their main threads alone. */
export function cpuMs(pids: readonly number[]): { all: number; main: number } {
  let all = 0
  let main = 0
  for (const pid of pids) {
    main += threadCpuMs(pid, pid)
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      all += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
    } catch {
      all = Number.NaN
    }
  }
  return { all, main }
}

/** CPU per run (µs) over a stretch of runs, by process: this (host) one and the sandbox's children. */
export interface CpuPerRun {
  hostUs: number
  hostMainUs: number
  childUs: number
  childMainUs: number
}

/** Start counting CPU of this process and `children`; the function it returns gives the CPU per run of `runs`. */
export function cpuPerRun(children: readonly number[]): (runs: number) => CpuPerRun {
  const host0 = process.cpuUsage()
  const hostMain0 = threadCpuMs(process.pid, process.pid)
  const child0 = cpuMs(children)
  return (runs) => {
    const host = process.cpuUsage(host0)
    const child = cpuMs(children)
    const per = (ms: number) => round((ms * 1000) / runs, 0)
    return {
      hostUs: round((host.user + host.system) / runs, 0),
      hostMainUs: per(threadCpuMs(process.pid, process.pid) - hostMain0),
      childUs: per(child.all - child0.all),
      childMainUs: per(child.main - child0.main),
    }
  }
}

/** The CPU rows of an 8-in-flight measurement: which process a regression is in. */
export function cpuRows(what: string, cpu: CpuPerRun): BenchRow[] {
  return [
    {
      name: `  CPU per run, ${what}: this (host) process`,
      value: cpu.hostUs,
      unit: 'µs',
      note: `main thread ${cpu.hostMainUs} µs; the rest is worker threads (checker, V8's compiler and GC)`,
    },
    {
      name: `  CPU per run, ${what}: the sandbox's child processes (sum)`,
      value: cpu.childUs,
      unit: 'µs',
      note: `main threads ${cpu.childMainUs} µs; the rest is isolated-vm's isolate threads and V8's; /proc, 10 ms ticks over ~3 s of runs`,
    },
  ]
}

/** Runs per second with 8 runs in flight for ~3 s, each of the 8 lanes as `callerOf(lane)`, and the CPU per run by process. */
async function throughput(
  callerOf: (lane: number) => string | undefined,
  options: IsolateSandboxOptions = {},
): Promise<{ perSecond: number; cpu: CpuPerRun }> {
  const sandbox = createIsolateSandbox(options)
  await sandbox.start()
  const trivial = request('return 1')
  const lane = (i: number) => ({ ...trivial, ...(callerOf(i) !== undefined ? { callerId: callerOf(i)! } : {}) })
  // Warm every lane's process first: the figure is steady-state throughput, not spawn time.
  for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 8 }, (_, i) => sandbox.run(lane(i), host, never)))
  const pids = [...new Set(Array.from({ length: 8 }, (_, i) => sandbox.pidOf(callerOf(i))))].filter((p) => p !== undefined)
  let done = 0
  const counted = cpuPerRun(pids)
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
  const cpu = counted(done)
  await sandbox.close()
  return { perSecond, cpu }
}

const URLS = 2000
/** The loop both URL rows run: `make(i)` per iteration, its href read back so nothing is dropped. */
const urlLoop = (make: string) => `let n = 0; for (let i = 0; i < ${URLS}; i++) n += (${make}).href.length; return n`

/** µs per `new URL(...)` inside a run, and per plain object built by the same loop (the floor), interleaved. */
export async function urlRuns(): Promise<{ urlUs: number[]; objectUs: number[] }> {
  const sandbox = createIsolateSandbox()
  await sandbox.start()
  const urls = request(urlLoop("new URL('http://h' + i + '.example/a/../p?q=' + i + '#f', 'http://base/')"))
  const objects = request(urlLoop("{ href: 'http://h' + i + '.example/a/../p?q=' + i + '#f', base: 'http://base/' }"))
  for (let i = 0; i < 5; i++) {
    await sandbox.run(urls, host, never)
    await sandbox.run(objects, host, never)
  }
  const urlUs: number[] = []
  const objectUs: number[] = []
  for (let r = 0; r < ROUNDS * 3; r++) {
    urlUs.push(((await time(() => sandbox.run(urls, host, never))) / URLS) * 1000)
    objectUs.push(((await time(() => sandbox.run(objects, host, never))) / URLS) * 1000)
  }
  await sandbox.close()
  return { urlUs, objectUs }
}

const F_IVM = 'floor: isolated-vm in this process, warm isolate, fresh context per run'
const F_WORKER = 'floor: fresh worker_threads Worker per run'
const F_CHILD = 'floor: fresh --no-node-snapshot child, spawn to first IPC message'
const F_IPC = 'floor: bare IPC round trip, interleaved with the tool-call rounds'
const F_OBJECT = `floor: the same loop building a plain object, ${URLS} per run (isolate sandbox)`

export default async function bench(): Promise<BenchRow[]> {
  const ivm = await ivmInHost(WARM_RUNS)
  const workers = await freshWorker(30)
  const children = await freshChild(10)
  const warm = await warmRuns()
  const split = await childSplit(WARM_RUNS)
  const cold = await coldRuns()
  const oneCaller = await throughput(() => undefined)
  const eightCallers = await throughput((i) => `caller-${i}`)
  const perRun = await throughput(() => undefined, { isolation: 'run' })
  const url = await urlRuns()
  const warmP50 = median(warm.samples)
  const hops = split.roundTrip.map((rt, i) => rt - (split.inChild[i] ?? Number.NaN))
  const ratios = warm.perCallUs.map((c, i) => c / (warm.ipcUs[i] ?? Number.NaN))
  const stats = (s: number[]) => ({ p50Ms: round(median(s)), p95Ms: round(percentile(s, 95)) })
  return [
    { name: F_IVM, ...stats(ivm) },
    { name: F_WORKER, ...stats(workers) },
    { name: F_CHILD, ...stats(children) },
    {
      name: 'warm run, trivial program (isolate sandbox)',
      ...stats(warm.samples),
      baseline: F_IVM,
      note: `${round(median(workers) / warmP50, 1)}× faster than a fresh Worker`,
    },
    { name: 'warm run, straight to the child: round trip', ...stats(split.roundTrip), baseline: F_IVM },
    { name: '… of which in the child (pool + realm + program + outcome)', ...stats(split.inChild), baseline: F_IVM },
    {
      name: '… of which the hop (IPC both ways, serialising, waking)',
      ...stats(hops),
      note: `${round((median(hops) * 1000) / median(warm.ipcUs), 1)}× a bare IPC round trip`,
    },
    { name: 'cold run: new sandbox (child process + isolate), trivial program, close', ...stats(cold), baseline: F_CHILD },
    { name: F_IPC, value: round(median(warm.ipcUs), 1), unit: 'µs', note: `${ROUNDS} rounds of ${CALLS}` },
    {
      name: "information: bare round trip on the isolate child's transport (pipe, frames), interleaved",
      value: round(median(warm.frameUs), 1),
      unit: 'µs',
      note: `${round(median(warm.frameUs) / median(warm.ipcUs), 2)}× the IPC floor; a result frame out, a call frame back, both decoded`,
    },
    {
      name: `sequential tool call, ${CALLS} × tools.noop() per run (isolate sandbox)`,
      value: round(median(warm.perCallUs), 1),
      unit: 'µs per call',
      baseline: F_IPC,
      goal: '≤ 2× the IPC round trip',
      note: `per-round ratio median ${round(median(ratios), 2)}×`,
    },
    {
      name: `parallel tool calls, ${CALLS} × tools.noop() in one Promise.all per run (isolate sandbox)`,
      value: round(median(warm.parallelUs), 1),
      unit: 'µs per call',
      baseline: F_IPC,
      note: `${round(median(warm.parallelUs) / median(warm.ipcUs), 2)}× the IPC round trip: a turn's calls and answers travel as one message each`,
    },
    { name: F_OBJECT, value: round(median(url.objectUs), 2), unit: 'µs per object', note: 'the whole run, divided by the loop count' },
    {
      name: `new URL(input, base) × ${URLS} in one run (isolate sandbox)`,
      value: round(median(url.urlUs), 2),
      unit: 'µs per URL',
      baseline: F_OBJECT,
      note: `${round(median(url.urlUs) / median(url.objectUs), 1)}× the plain object; each URL is one synchronous call of the host's parser`,
    },
    { name: 'runs/s, 8 in flight, one caller (one process)', value: round(oneCaller.perSecond, 0), unit: 'runs/s' },
    ...cpuRows('one caller', oneCaller.cpu),
    {
      name: 'runs/s, 8 in flight, 8 callers (8 processes)',
      value: round(eightCallers.perSecond, 0),
      unit: 'runs/s',
      baseline: 'runs/s, 8 in flight, one caller (one process)',
      note: `isolating callers ${eightCallers.perSecond <= oneCaller.perSecond ? `costs ${round((1 - eightCallers.perSecond / oneCaller.perSecond) * 100, 0)}%` : `gains ${round((eightCallers.perSecond / oneCaller.perSecond - 1) * 100, 0)}%`} of throughput`,
    },
    ...cpuRows('8 callers', eightCallers.cpu),
    {
      name: "runs/s, 8 in flight, a process per run (isolation: 'run')",
      value: round(perRun.perSecond, 1),
      unit: 'runs/s',
      baseline: 'runs/s, 8 in flight, one caller (one process)',
    },
  ]
}

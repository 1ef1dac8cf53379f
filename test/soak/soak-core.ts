/**
 * The soak: many mixed runs (successes, thrown errors, timeouts, memory kills) and fuzzed programs
 * (garbage, truncated valid programs, random tool arguments) through one runtime, a few at a time.
 * Every run must come back as a RunResult. Reports open file descriptors, child processes, unanswered
 * calls, and per window of runs: throughput, RSS, the retained heap, the children's RSS, the log's size
 * and the active handles (soak-memory.ts), with their growth after warm-up. Shared by `make soak`
 * (scripts/soak.mjs) and test/soak.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createRuntime } from '../../runtime/index.js'
import type { AnyToolDefinition, Limits, RunEvent } from '../../vocabulary/types.js'
import { growthAfterWarmUp, isolateChildren, sampleWindow, type SoakWindow } from './soak-memory.js'

export interface SoakOptions {
  runs: number
  concurrency?: number
  seed?: number
  /** Called after each window of runs with a progress line. */
  progress?: (line: string) => void
  /** The backend to soak (default isolate). */
  sandbox?: 'isolate' | 'docker'
}

export interface SoakReport {
  runs: number
  /** Runs whose answer was not a RunResult (thrown, or the wrong shape). Must be 0. */
  notResults: number
  outcomes: Record<string, number>
  unanswered: number
  rssStartMb: number
  rssEndMb: number
  fdStart: number
  fdEnd: number
  childrenDuring: number
  childrenAfterClose: number
  runsPerSecond: number[]
  seconds: number
  /** One sample after each window of runs (about 20 windows). */
  windows: SoakWindow[]
  /** After warm-up (the last quarter of windows against the second; the child by its floor), in MB or counts. */
  growth: { rssMb: number; heapRetainedMb: number; childRssMb: number; activeResources: number }
}

const OPEN = { type: 'object' } as const
const tools: AnyToolDefinition[] = [
  { name: 'echo', description: 'Returns its arguments.', parameters: OPEN, execute: (a: unknown) => a },
  {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    execute: (a: { a: number; b: number }) => a.a + a.b,
  },
  {
    name: 'fail',
    description: 'Fails.',
    parameters: OPEN,
    execute: () => {
      throw Object.assign(new Error('no'), { code: 'EACCES' })
    },
  },
]

/** A small deterministic PRNG (mulberry32), so a failing soak can be replayed by its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const VALID = [
  `const r = await tools.add({ a: 2, b: 3 }); console.log('sum', r); return r`,
  `const xs = await Promise.all([1, 2, 3].map((i) => tools.echo({ i }))); return xs.map((x) => x.i)`,
  `try { await tools.fail({}) } catch (e) { return e.code }`,
  `interface P { n: number } const p: P = { n: 4 }; return p.n * 2`,
  `throw new Error('the program failed on purpose')`,
  `return await tools.nope({})`,
]

function randomValue(next: () => number, depth = 0): unknown {
  const k = Math.floor(next() * (depth > 2 ? 5 : 8))
  switch (k) {
    case 0:
      return null
    case 1:
      return next() * 1e6 - 5e5
    case 2:
      return String.fromCharCode(...Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * 0xffff)))
    case 3:
      return next() < 0.5
    case 4:
      return Math.floor(next() * 100)
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1))
    default: {
      const o: Record<string, unknown> = {}
      for (let i = 0; i < Math.floor(next() * 4); i++)
        o[['a', 'b', '__proto__', 'x', 'constructor'][i] ?? 'z'] = randomValue(next, depth + 1)
      return o
    }
  }
}

function pick(next: () => number, docker = false): { kind: string; code: string; limits?: Partial<Limits> } {
  const r = next()
  if (r < 0.35) return { kind: 'valid', code: VALID[Math.floor(next() * VALID.length)]! }
  if (r < 0.5) {
    const v = VALID[Math.floor(next() * VALID.length)]!
    return { kind: 'truncated', code: v.slice(0, Math.floor(next() * v.length)) }
  }
  if (r < 0.6) {
    const chars = '(){}[];:=>+-*/`\'"\\ \nawaitreturnconstfortoolsx0123'
    return {
      kind: 'garbage',
      code: Array.from({ length: 1 + Math.floor(next() * 80) }, () => chars[Math.floor(next() * chars.length)]).join(''),
    }
  }
  if (r < 0.8) {
    const name = ['echo', 'add', 'fail', 'missing'][Math.floor(next() * 4)]
    return { kind: 'fuzzed-args', code: `return await tools.${name}(${JSON.stringify(randomValue(next))})` }
  }
  if (r < 0.92) return { kind: 'timeout', code: next() < 0.5 ? 'for (;;) {}' : 'await new Promise(() => {})', limits: { timeoutMs: 200 } }
  // A container's Node needs more than an isolate's heap to start, so its memory job gets a larger limit.
  return {
    kind: 'memory',
    code: 'const keep = []; for (;;) keep.push(new Array(1e6).fill(1.5))',
    limits: { memoryMb: docker ? 96 : 32, timeoutMs: docker ? 15_000 : 5000 },
  }
}

const openFds = () => readdirSync('/proc/self/fd').length
const rssMb = () => process.memoryUsage().rss / 1048576
/** What the runtime leaves running: isolate host processes, or this process's containers. */
function sandboxChildren(sandbox: 'isolate' | 'docker' = 'isolate'): number {
  if (sandbox === 'docker') {
    try {
      const ids = execFileSync('docker', ['ps', '-aq', '--filter', 'label=codeact'], { encoding: 'utf8' }).split('\n').filter(Boolean)
      // A container may vanish between `ps` and `inspect` (its run just ended): that one is not left over.
      const ownerOf = (id: string) => {
        try {
          return execFileSync('docker', ['inspect', '-f', '{{index .Config.Labels "codeact.owner"}}', id], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          }).trim()
        } catch {
          return ''
        }
      }
      return ids.filter((id) => ownerOf(id).endsWith(`:${process.pid}`)).length
    } catch {
      return 0
    }
  }
  return isolateChildren().length
}

/**
 * Tool calls without a result, counted live over every event (the log keeps only the newest, so a count
 * over `rt.log.all()` at the end would see results whose calls were dropped).
 */
function trackCalls(rt: { log: { subscribe(listener: (e: RunEvent) => void): () => void } }): { unanswered(): number } {
  const open = new Map<string, number>()
  rt.log.subscribe((e) => {
    const id = (e.data as { id?: string }).id
    if (id === undefined || (e.type !== 'tool/call' && e.type !== 'tool/result')) return
    const n = (open.get(id) ?? 0) + (e.type === 'tool/call' ? 1 : -1)
    if (n === 0) open.delete(id)
    else open.set(id, n)
  })
  return { unanswered: () => open.size }
}

export async function soak(options: SoakOptions): Promise<SoakReport> {
  const next = rng(options.seed ?? 1)
  const concurrency = options.concurrency ?? 4
  const sandbox = options.sandbox ?? 'isolate'
  const rt = await createRuntime({
    tools,
    typecheck: 'off',
    sandbox,
    ...(sandbox === 'docker' ? { docker: { poolSize: concurrency } } : {}),
  })
  const calls = trackCalls(rt)
  await rt.sandbox.start()
  await rt.runCode('return 1')
  const rssStartMb = rssMb()
  const fdStart = openFds()
  const outcomes: Record<string, number> = {}
  let notResults = 0
  let started = 0
  let finished = 0
  let childrenDuring = 0
  const runsPerSecond: number[] = []
  const windows: SoakWindow[] = []
  const t0 = performance.now()
  let windowStart = t0
  let windowRuns = 0
  const window = Math.max(50, Math.floor(options.runs / 20))

  const worker = async () => {
    while (started < options.runs) {
      started++
      const job = pick(next, sandbox === 'docker')
      try {
        const r = await rt.runCode(job.code, job.limits ? { limits: job.limits } : {})
        if (typeof r !== 'object' || typeof r.ok !== 'boolean' || typeof r.observation !== 'string') notResults++
        const key = `${job.kind}→${r.ok ? 'ok' : r.error?.kind}`
        outcomes[key] = (outcomes[key] ?? 0) + 1
      } catch {
        notResults++
      }
      finished++
      windowRuns++
      if (windowRuns >= window) {
        const now = performance.now()
        runsPerSecond.push(windowRuns / ((now - windowStart) / 1000))
        childrenDuring = Math.max(childrenDuring, sandboxChildren(sandbox))
        const w = sampleWindow(finished, runsPerSecond.at(-1)!, rt.log.all().length, sandbox)
        windows.push(w)
        const child = w.childRssMb !== undefined ? `, child RSS ${w.childRssMb.toFixed(0)} MB` : ''
        options.progress?.(
          `${finished} runs, ${w.runsPerSecond.toFixed(0)} runs/s, RSS ${w.rssMb.toFixed(0)} MB (heap ${w.heapTotalMb.toFixed(0)}, retained ${w.heapRetainedMb.toFixed(1)})${child}, log ${w.logEvents} events, handles ${w.activeResources}, fds ${openFds()}`,
        )
        windowStart = performance.now() // the sample's own time (a full collection) is not the runs'
        windowRuns = 0
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - t0) / 1000
  const unanswered = calls.unanswered()
  const rssEndMb = rssMb()
  const fdEnd = openFds()
  await rt.close()
  await new Promise((r) => setTimeout(r, 300))
  return {
    runs: finished,
    notResults,
    outcomes,
    unanswered,
    rssStartMb,
    rssEndMb,
    fdStart,
    fdEnd,
    childrenDuring,
    childrenAfterClose: sandboxChildren(sandbox),
    runsPerSecond,
    seconds,
    windows,
    growth: {
      rssMb: growthAfterWarmUp(windows, (w) => w.rssMb),
      heapRetainedMb: growthAfterWarmUp(windows, (w) => w.heapRetainedMb),
      childRssMb: growthAfterWarmUp(
        windows,
        (w) => w.childRssMb,
        (xs) => Math.min(...xs),
      ),
      activeResources: growthAfterWarmUp(windows, (w) => w.activeResources),
    },
  }
}

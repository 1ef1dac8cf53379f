/**
 * The footprint rows of bench/runtime.ts (not a suite of its own: no default export): a fresh Node process
 * runs 1,000 trivial programs with the check off, a new text each (as a model's are: each run's log keeps
 * its own; one text repeated kept one string and grew the host's young generation later), then reads VmRSS
 * (the goal's measure), PSS and USS of itself and of its isolate child — right after the 1,000th run, and
 * again at rest: a harness sits idle between a model's turns, and after a burst the host's young generation
 * is at its peak until V8's memory reducer shrinks it (10–25 s later, when it runs at all), and the child
 * trims its pool after 5 s (sandbox/isolate/quiet.ts).
 */
import { spawn } from 'node:child_process'
import { round } from './measure.js'
import type { BenchRow } from './types.js'

interface Footprint {
  /** VmRSS (the goal's measure), PSS (shared pages split between the processes mapping them), USS (private). */
  rss: number
  pss: number
  uss: number
}

/** The host's V8 heap (committed) and its young generation: V8 doubles the young generation at every semi-space's worth of survivors, the step that moves this row most (README, Benchmarks: Memory). */
type Sample = { host: Footprint; child: Footprint; heap: { committed: number; young: number } }
/** `settledS`: seconds from the 1,000th run to the last move of the total (over 0.5 MB); `idleS`: how long it idled. */
type Probe = { now: Sample; rest: Sample & { settledS: number; idleS: number } }

/** At rest: the total has not moved by more than 0.5 MB for this long (V8's memory reducer acts at ~8 s steps)… */
const STILL_S = 15
/** … or this long has passed since the 1,000th run. */
const CAP_S = 45

/**
 * A fresh Node process that runs 1,000 trivial programs with the check off, then prints its footprint and its
 * child's, at once (`now`, resolved as soon as printed) and at rest (`probe`).
 */
function rssAfterRuns(repo: string, runs: number): { now: Promise<void>; probe: Promise<Probe> } {
  const script = `
    import { createRuntime } from ${JSON.stringify(`${repo}dist/runtime/index.js`)}
    import { readFileSync } from 'node:fs'
    import v8 from 'node:v8'
    const kb = (text, key) => Number(new RegExp(key + ':\\\\s+(\\\\d+)').exec(text)[1]) / 1024
    const footprint = (pid) => {
      const rollup = readFileSync('/proc/' + pid + '/smaps_rollup', 'utf8')
      const rss = kb(readFileSync('/proc/' + pid + '/status', 'utf8'), 'VmRSS')
      return { rss, pss: kb(rollup, 'Pss'), uss: kb(rollup, 'Private_Clean') + kb(rollup, 'Private_Dirty') }
    }
    const rt = await createRuntime({ typecheck: 'off' })
    for (let i = 0; i < ${runs}; i++) { const r = await rt.runCode('return ' + i + ' + 1'); if (!r.ok) throw new Error(r.observation) }
    const child = rt.sandbox.pidOf()
    const sample = () => {
      const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
      const heap = { committed: v8.getHeapStatistics().total_physical_size / 1048576, young: young / 1048576 }
      return { host: footprint(process.pid), child: footprint(child), heap }
    }
    const now = sample()
    console.log(JSON.stringify({ now }))
    const start = Date.now()
    let last = now.host.rss + now.child.rss, movedAt = start, at = start
    while (at - movedAt < ${STILL_S * 1000} && at - start < ${CAP_S * 1000}) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      at = Date.now()
      const total = footprint(process.pid).rss + footprint(child).rss
      if (Math.abs(total - last) > 0.5) [last, movedAt] = [total, at]
    }
    const rest = { ...sample(), settledS: (movedAt - start) / 1000, idleS: (at - start) / 1000 }
    console.log(JSON.stringify({ now, rest }))
    await rt.close()`
  let nowSeen: () => void = () => {}
  const now = new Promise<void>((resolve) => (nowSeen = resolve))
  const probe = new Promise<Probe>((resolve, reject) => {
    const p = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('\n')) nowSeen()
    })
    p.once('error', reject)
    p.once('close', () => {
      nowSeen()
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as Probe)
      } catch {
        reject(new Error(`RSS probe printed: ${out.slice(0, 200)}`))
      }
    })
  })
  return { now, probe }
}

const total = (s: Sample) => s.host.rss + s.child.rss
/** The sample whose total is the median of three. */
const median = <T extends Sample>(samples: T[]): T => [...samples].sort((a, b) => total(a) - total(b))[1] as T

const split = (s: Sample) =>
  `host ${round(s.host.rss, 0)} + child ${round(s.child.rss, 0)} (VmRSS); PSS ${round(s.host.pss, 0)} + ${round(s.child.pss, 0)}, ` +
  `private (USS) ${round(s.host.uss, 0)} + ${round(s.child.uss, 0)}; host V8 heap ${round(s.heap.committed, 0)} MB committed, ` +
  `of it young generation ${round(s.heap.young, 0)} MB`

export async function rssRows(repo: string): Promise<BenchRow[]> {
  // The program isolates' heaps swing with their garbage and the host's with its own, so one probe is noisy:
  // the probe whose total is the median of three, for each row. The runs of one probe do not overlap
  // another's: the next starts when the last has its first figures, while that one idles (idling costs
  // nothing of the next one's runs). VmRSS and USS are each process's own; PSS splits the shared pages
  // among every process that maps them, so it is lower while the others are alive.
  const probes: Promise<Probe>[] = []
  for (let i = 0; i < 3; i++) {
    const started = rssAfterRuns(repo, 1000)
    probes.push(started.probe)
    await started.now
  }
  const done = await Promise.all(probes)
  const now = median(done.map((p) => p.now))
  const rest = median(done.map((p) => p.rest))
  return [
    {
      name: "RSS after 1,000 runs, typecheck 'off' (host + child, median of 3 processes)",
      value: round(total(now), 0),
      unit: 'MB',
      goal: '≤ 120 MB',
      note:
        `${split(now)}: each VmRSS counts its ~36 MB of mapped node binary, shared with every node process; ` +
        `check-off programs are prepared in the checker's thread (TypeScript's parser + oxc; no lib parsed, no zod); ` +
        `totals of the 3: ${done.map((p) => round(total(p.now), 0)).join(', ')}`,
    },
    {
      name: "RSS at rest after 1,000 runs, typecheck 'off' (the same processes, idle until it settles)",
      value: round(total(rest), 0),
      unit: 'MB',
      goal: '≤ 120 MB',
      note:
        `${split(rest)}; settled ${round(rest.settledS, 0)} s after the last run (sampled every 1 s: no move over 0.5 MB ` +
        `for ${STILL_S} s, or ${CAP_S} s); totals of the 3: ${done.map((p) => `${round(total(p.rest), 0)} (${round(p.rest.settledS, 0)} s)`).join(', ')}`,
    },
  ]
}

/**
 * The footprint row of bench/runtime.ts (not a suite of its own: no default export): a fresh Node process
 * runs 1,000 trivial programs with the check off, a new text each (as a model's are: each run's log keeps
 * its own; one text repeated kept one string and grew the host's young generation later), then reads VmRSS
 * (the goal's measure), PSS and USS of itself and of its isolate child.
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
type Probe = { host: Footprint; child: Footprint; heap: { committed: number; young: number } }

/** A fresh Node process that runs 1,000 trivial programs with the check off, then reports its footprint and its child's. */
function rssAfterRuns(repo: string, runs: number): Promise<Probe> {
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
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
    const heap = { committed: v8.getHeapStatistics().total_physical_size / 1048576, young: young / 1048576 }
    console.log(JSON.stringify({ host: footprint(process.pid), child: footprint(rt.sandbox.pidOf()), heap }))
    await rt.close()`
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.once('error', reject)
    p.once('close', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as Probe)
      } catch {
        reject(new Error(`RSS probe printed: ${out.slice(0, 200)}`))
      }
    })
  })
}

export async function rssRow(repo: string): Promise<BenchRow> {
  // The program isolates' heaps swing with their garbage (collected above 4 MB, sandbox/isolate/pool.ts) and
  // the host's with its own, so one probe is noisy: the probe whose total is the median of three.
  const probes: Probe[] = []
  for (let i = 0; i < 3; i++) probes.push(await rssAfterRuns(repo, 1000))
  const total = (p: Probe) => p.host.rss + p.child.rss
  const rss = probes.sort((a, b) => total(a) - total(b))[1] as Probe
  return {
    name: "RSS after 1,000 runs, typecheck 'off' (host + child, median of 3 processes)",
    value: round(rss.host.rss + rss.child.rss, 0),
    unit: 'MB',
    goal: '≤ 120 MB',
    note:
      `host ${round(rss.host.rss, 0)} + child ${round(rss.child.rss, 0)} (VmRSS); PSS ${round(rss.host.pss, 0)} + ${round(rss.child.pss, 0)}, ` +
      `private (USS) ${round(rss.host.uss, 0)} + ${round(rss.child.uss, 0)}: each VmRSS counts its ~36 MB of mapped node binary, shared ` +
      `with every node process; host V8 heap ${round(rss.heap.committed, 0)} MB committed, of it young generation ${round(rss.heap.young, 0)} MB; ` +
      `the host prepares check-off programs in its own thread (Babel + acorn + oxc; no TypeScript, zod or checker thread); ` +
      `totals of the 3: ${probes.map((p) => round(total(p), 0)).join(', ')}`,
  }
}

/**
 * What the soak samples after each window of runs, and how it tells growth from noise.
 *
 * RSS alone cannot tell a leak from V8 sizing its heap: a heap grows towards its limit lazily and gives
 * pages back late, so RSS climbs for thousands of runs and then plateaus. Each window therefore records,
 * besides RSS, the host's JS heap *after a full collection* (what is retained), the sandbox children's RSS,
 * the event log's size (bounded by `logRetention`) and the host's active handles and timers (counts: a
 * listener or timer left per run shows here first). Growth compares the last quarter of windows with the
 * second, so the warm-up (a second checker thread, heaps sizing up) is not read as growth and one noisy
 * sample does not decide it.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

export interface SoakWindow {
  /** Runs finished at the end of this window. */
  runs: number
  runsPerSecond: number
  /** The host process's RSS (before the collection below). */
  rssMb: number
  heapTotalMb: number
  /** The host's JS heap after a full collection: what is retained. */
  heapRetainedMb: number
  /** The isolate backend's child processes, summed (undefined on Docker: containers are not ours to read). */
  childRssMb: number | undefined
  /** Events in `rt.log` (bounded by the runtime's logRetention). */
  logEvents: number
  /** The host's active handles, requests and timers (process.getActiveResourcesInfo()). */
  activeResources: number
}

let collect: (() => void) | undefined
/** A full, synchronous collection, available without `--expose-gc` on the command line. */
function fullGc(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc')
    collect = runInNewContext('gc') as () => void
  }
  collect()
}

const mb = (bytes: number) => bytes / 1048576

/** The isolate host processes this process spawned: their pids and RSS. */
export function isolateChildren(): { pid: number; rssMb: number }[] {
  try {
    return execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,rss=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('isolate/child.js'))
      .map((l) => l.trim().split(/\s+/))
      .map(([pid, rss]) => ({ pid: Number(pid), rssMb: Number(rss) / 1024 }))
  } catch {
    return []
  }
}

/** Our own RSS, read from /proc (process.memoryUsage() walks the whole heap for its other figures). */
function rssNowMb(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return m ? Number(m[1]) / 1024 : mb(process.memoryUsage.rss())
}

export function sampleWindow(runs: number, runsPerSecond: number, logEvents: number, sandbox: 'isolate' | 'docker'): SoakWindow {
  const rssMb = rssNowMb()
  const heapTotalMb = mb(process.memoryUsage().heapTotal)
  fullGc()
  const heapRetainedMb = mb(process.memoryUsage().heapUsed)
  const childRssMb = sandbox === 'isolate' ? isolateChildren().reduce((sum, c) => sum + c.rssMb, 0) : undefined
  return {
    runs,
    runsPerSecond,
    rssMb,
    heapTotalMb,
    heapRetainedMb,
    childRssMb,
    logEvents,
    activeResources: process.getActiveResourcesInfo().length,
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * Growth of one figure after warm-up: `stat` (default the median) of the last quarter of windows minus
 * that of the second quarter (NaN with fewer than 4 windows or where the figure is not sampled). The
 * child's RSS is judged by its floor (Math.min): it peaks whenever a memory-limit run has just filled an
 * isolate, which says when the sample fell, not what stays.
 */
export function growthAfterWarmUp(
  windows: readonly SoakWindow[],
  pick: (w: SoakWindow) => number | undefined,
  stat: (xs: number[]) => number = median,
): number {
  const q = Math.floor(windows.length / 4)
  if (q < 1) return Number.NaN
  const values = (ws: readonly SoakWindow[]) => ws.map(pick).filter((v): v is number => v !== undefined)
  const second = values(windows.slice(q, 2 * q))
  const last = values(windows.slice(windows.length - q))
  return second.length && last.length ? stat(last) - stat(second) : Number.NaN
}

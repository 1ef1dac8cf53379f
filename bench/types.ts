/** One row of the `make bench` table. Every figure sits next to a baseline measured in the same run. */
export interface BenchRow {
  /** What was measured, e.g. "warm run, trivial program (isolate)". */
  name: string
  p50Ms?: number
  p95Ms?: number
  /** A single figure when p50/p95 do not apply (runs/s, µs per call, MB). */
  value?: number
  unit?: string
  /** The name of the baseline row this one is compared with (same table). */
  baseline?: string
  /** Goal, as text ("p50 ≤ 3 ms"). */
  goal?: string
  note?: string
}

/** A bench module default-exports one of these. */
export type BenchSuite = () => Promise<BenchRow[]>

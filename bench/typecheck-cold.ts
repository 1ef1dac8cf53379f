/**
 * A cold `codeact run` of a trivial program (`return 1`), whole process, wall clock, on each backend: with the
 * check on (the default) against its floor, the same run with `--typecheck=off`. The check on is measured the
 * way a user meets it — the shared checker up (program/checker-daemon.ts: any run after the first within its
 * idle time) — and, as information, the first run that starts the daemon and a run with the daemon off
 * (`CODEACT_CHECKER_DAEMON=off`: the process loads TypeScript and parses the lib for its one check). Runs of
 * the variants are interleaved so that load falls on all alike. A state folder of its own; its daemon is
 * ended at the end.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, percentile, round } from './measure.js'
import type { BenchRow } from './types.js'

const BIN = fileURLToPath(new URL('../../bin/codeact.mjs', import.meta.url))
const RUNS = { isolate: 7, docker: 3 }

type Variant = 'off' | 'shared' | 'first' | 'alone'

/** One CLI run's wall time (ms); throws when it did not return 1. */
function runOnce(dir: string, backend: 'isolate' | 'docker', variant: Variant, state: string): number {
  const env: NodeJS.ProcessEnv = { ...process.env, CODEACT_STATE_DIR: state }
  delete env.CODEACT_CHECKER_DAEMON
  if (variant === 'alone') env.CODEACT_CHECKER_DAEMON = 'off'
  const args = [BIN, 'run', 'p.ts', '--sandbox', backend, ...(variant === 'off' ? ['--typecheck=off'] : [])]
  const start = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 })
  const ms = performance.now() - start
  if (!r.stdout.includes('Return value:\n1')) throw new Error(`codeact run (${backend}, ${variant}) failed: ${r.stdout.slice(0, 200)}`)
  return ms
}

/** Ends the daemons serving `state` (their socket removed: they leave; their pid, to be sure). */
function endDaemons(state: string): void {
  const dir = join(state, 'checker')
  let names: string[] = []
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (name.endsWith('.pid')) {
      try {
        process.kill(Number(readFileSync(join(dir, name), 'utf8').trim()))
      } catch {
        // gone already
      }
    }
    rmSync(join(dir, name), { force: true })
  }
}

function dockerReady(): boolean {
  const image = process.env.CODEACT_IMAGE ?? 'codeact-runner:latest'
  return spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore', timeout: 30_000 }).status === 0
}

function backendRows(root: string, backend: 'isolate' | 'docker'): BenchRow[] {
  const dir = join(root, backend)
  mkdirSync(dir)
  writeFileSync(join(dir, 'p.ts'), 'return 1\n')
  const state = join(dir, 'state')
  mkdirSync(state, { mode: 0o700 })
  const times: Record<Variant, number[]> = { off: [], shared: [], first: [], alone: [] }
  try {
    runOnce(dir, backend, 'shared', state) // the daemon started and its checker warm: what `shared` measures
    runOnce(dir, backend, 'off', state) // the code cache written
    for (let i = 0; i < RUNS[backend]; i++) {
      times.off.push(runOnce(dir, backend, 'off', state))
      times.shared.push(runOnce(dir, backend, 'shared', state))
      times.alone.push(runOnce(dir, backend, 'alone', state))
      if (i < 3) {
        const fresh = join(dir, `first-${i}`)
        mkdirSync(fresh, { mode: 0o700 })
        try {
          times.first.push(runOnce(dir, backend, 'first', fresh))
        } finally {
          endDaemons(fresh)
        }
      }
    }
  } finally {
    endDaemons(state)
  }
  const floor = `cold \`codeact run\` of \`return 1\`, --typecheck=off (${backend})`
  const row = (name: string, samples: number[], extra: Partial<BenchRow> = {}): BenchRow => ({
    name,
    p50Ms: round(median(samples), 0),
    p95Ms: round(percentile(samples, 95), 0),
    note: `${samples.length} runs, whole process, interleaved`,
    ...extra,
  })
  return [
    row(floor, times.off),
    row(`cold \`codeact run\` of \`return 1\`, check on, shared checker up (${backend})`, times.shared, {
      baseline: floor,
      goal: '≤ 1.5×',
    }),
    row(`cold \`codeact run\` of \`return 1\`, check on, first run: starts the shared checker (${backend})`, times.first, {
      baseline: floor,
    }),
    row(`cold \`codeact run\` of \`return 1\`, check on, CODEACT_CHECKER_DAEMON=off (${backend})`, times.alone, { baseline: floor }),
  ]
}

export default async (): Promise<BenchRow[]> => {
  const root = mkdtempSync(join(tmpdir(), 'codeact-bench-cold-'))
  try {
    const rows = backendRows(root, 'isolate')
    if (dockerReady()) rows.push(...backendRows(root, 'docker'))
    else rows.push({ name: 'cold `codeact run` (docker)', note: 'skipped: no Docker engine or no runner image (make image)' })
    return rows
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

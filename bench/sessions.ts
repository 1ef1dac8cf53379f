/**
 * Sessions (issue 15), through createRuntime with the type check on, as a user runs them: a warm run in a
 * session against a warm stateless run (both measured here, interleaved); the extra RSS of 100 idle sessions
 * (the host and the isolate child, against the same processes before); and a restore: a 20-run session whose
 * realm is freed, restored on its next run, per replayed run against one session run, with the tool
 * executions during the restore counted (must be 0).
 */
import { readFileSync } from 'node:fs'
import { createRuntime } from '../runtime/create-runtime.js'
import type { IsolateSandbox } from '../sandbox/isolate/index.js'
import { sessionKey } from '../runtime/session-history.js'
import type { BenchRow } from './types.js'

const WARM = 60
/** Runs of one way back to back before the next way takes its turn. */
const WARM_BLOCK = 10
const IDLE_SESSIONS = 100
const HISTORY = 20
const RESTORES = 5

function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

async function timed(fn: () => Promise<{ ok: boolean; error: unknown }>): Promise<number> {
  const t = performance.now()
  const r = await fn()
  const ms = performance.now() - t
  if (!r.ok) throw new Error(`bench run failed: ${JSON.stringify(r.error)}`)
  return ms
}

export default async function sessionsBench(): Promise<BenchRow[]> {
  let executions = 0
  const tools = [
    {
      name: 'lookup',
      description: 'A number for a key.',
      parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      output: { type: 'number' },
      execute: ({ key }: { key: string }) => {
        executions++
        return key.length
      },
    },
  ]
  const rt = await createRuntime({ tools, sessions: { max: IDLE_SESSIONS + 10 } })
  const rows: BenchRow[] = []
  try {
    // Warm runs, interleaved in blocks so load on the machine falls on both alike, while each way runs
    // back to back as a warm caller does (alternating every run makes each run wake the other's isolate
    // first, which is what the runs in one session never do).
    const s = rt.session()
    await s.runCode('let n = 0\nconst seen = new Map<string, number>()')
    const stateless: number[] = []
    const session: number[] = []
    const usingState: number[] = []
    for (let i = 0; i < 10; i++) {
      await rt.runCode(`const k = 'w${i}'\nreturn k.length`)
      await s.runCode(`n++\nn`)
    }
    // The same program both ways; then one that reads and writes the session's state.
    const program = (i: number) => `const k = 'k${i}'\nreturn k.length + ${i}`
    for (let block = 0; block < WARM; block += WARM_BLOCK) {
      const end = Math.min(WARM, block + WARM_BLOCK)
      for (let i = block; i < end; i++) stateless.push(await timed(() => rt.runCode(program(i))))
      for (let i = block; i < end; i++) session.push(await timed(() => s.runCode(program(i))))
      for (let i = block; i < end; i++) usingState.push(await timed(() => s.runCode(`n++\nseen.set('k${i}', n)\nn + ${i}`)))
    }
    const base = 'warm run, stateless (runtime, type check on)'
    rows.push({ name: base, p50Ms: quantile(stateless, 0.5), p95Ms: quantile(stateless, 0.95) })
    rows.push({
      name: 'warm run in a session, same program',
      p50Ms: quantile(session, 0.5),
      p95Ms: quantile(session, 0.95),
      baseline: base,
      goal: '≤ 1.2×',
    })
    rows.push({
      name: 'warm run in a session, using its state',
      p50Ms: quantile(usingState, 0.5),
      p95Ms: quantile(usingState, 0.95),
      baseline: base,
      note: 'the check reads the session declarations',
    })

    // 100 idle sessions, each holding a little state.
    const pid = (rt.sandbox as IsolateSandbox).pidOf()
    const before = rssMb(pid) + rssMb(process.pid)
    const idle = Array.from({ length: IDLE_SESSIONS }, () => rt.session())
    for (const [i, t] of idle.entries()) await t.runCode(`const mine = { id: ${i}, tags: ['a', 'b'] }\nmine.id`)
    const after = rssMb((rt.sandbox as IsolateSandbox).pidOf()) + rssMb(process.pid)
    rows.push({ name: 'RSS before the idle sessions (host + isolate child)', value: before, unit: 'MB' })
    rows.push({
      name: `${IDLE_SESSIONS} idle sessions, extra RSS`,
      value: after - before,
      unit: 'MB',
      goal: '≤ 200 MB',
      note: `${((after - before) / IDLE_SESSIONS).toFixed(2)} MB per session`,
    })
    await Promise.all(idle.map((t) => t.close()))

    // Restore: a 20-run session (a tool call in each run), freed, then restored by its next run.
    const one: number[] = []
    const perReplayed: number[] = []
    let restoreExecutions = 0
    for (let round = 0; round < RESTORES; round++) {
      const h = rt.session()
      await h.runCode('const totals: number[] = []')
      for (let i = 1; i < HISTORY; i++) {
        const ms = await timed(() => h.runCode(`totals.push(await tools.lookup({ key: 'key-${i}' }) + totals.length)\ntotals.length`))
        if (i > 2) one.push(ms)
      }
      await rt.sandbox.endSession?.(sessionKey(h.caller, h.id))
      const executionsBefore = executions
      const t = performance.now()
      const r = await h.runCode('totals.length')
      const ms = performance.now() - t
      if (!r.ok || r.value !== HISTORY - 1 || !r.observation.includes('restored'))
        throw new Error(`bench: the restore failed: ${r.observation}`)
      restoreExecutions += executions - executionsBefore
      perReplayed.push(ms / HISTORY)
      await h.close()
    }
    rows.push({ name: 'one run of a 20-run session (a tool call each)', p50Ms: quantile(one, 0.5), p95Ms: quantile(one, 0.95) })
    rows.push({
      name: 'restore of a 20-run session, per replayed run',
      p50Ms: quantile(perReplayed, 0.5),
      p95Ms: quantile(perReplayed, 0.95),
      baseline: 'one run of a 20-run session (a tool call each)',
      goal: '≤ 2×',
      note: `tool executions during ${RESTORES} restores: ${restoreExecutions}`,
    })
  } finally {
    await rt.close()
  }
  return rows
}

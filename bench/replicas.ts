/**
 * Replicas (issue 32): `codeact mcp --http` replicas behind HAProxy, driven by the official MCP client with
 * sessions of 5 turns (a tool call each, the state checked every turn), as test/deploy/replicas.test.ts
 * drives them. Turns/s with 1, 2 and 3 replicas on one PostgreSQL store, against one replica on the
 * embedded store measured in the same run; a turn's latency one at a time on one replica, both stores,
 * whose difference is the store's share of a turn; and CPU per turn by part (replicas with their isolate
 * processes, PostgreSQL, HAProxy). Round-robin per request, so with 2–3 replicas most turns land on a
 * replica whose copy of the session is behind: it reloads the history from the store and replays it.
 */
import { isDeepStrictEqual } from 'node:util'
import { type Fleet, startFleet, treeCpuMs } from './fleet.js'
import { connect, keysUpTo, pool, turnCode } from './fleet-client.js'
import { median, percentile } from './measure.js'
import { type PostgresCluster, startPostgres } from './postgres.js'
import type { BenchRow } from './types.js'

const TURNS = 5
/** Sessions per throughput figure, and how many clients drive them at once (as the test does). */
const SESSIONS = 36
const AT_ONCE = 6
/** Sessions run one turn at a time for the latency figures. */
const SEQUENTIAL = 16
const REPLICA_ARGS = ['--max-sessions', '400', '--max-processes', '16']

/** Runs sessions `from…from+count-1`, `width` at once; every turn's answer checked. Each turn's ms. */
async function drive(fleet: Fleet, from: number, count: number, width: number): Promise<number[]> {
  const ms: number[] = []
  await pool(
    Array.from({ length: count }, (_, i) => from + i),
    width,
    async (s) => {
      const client = await connect(fleet.url, fleet.token)
      try {
        for (let t = 1; t <= TURNS; t++) {
          const start = performance.now()
          const out = await client.run(turnCode(s, t))
          ms.push(performance.now() - start)
          if (!out.ok || !isDeepStrictEqual(out.value, keysUpTo(s, t))) throw new Error(`session ${s} turn ${t}: ${out.text}`)
        }
      } finally {
        await client.close()
      }
    },
  )
  return ms
}

/** PostgreSQL's CPU ms: the postmaster and its backends, live or exited. */
const pgCpu = (cluster: PostgresCluster | undefined) => (cluster ? treeCpuMs(cluster.postmasterPid()) : 0)

interface Measured {
  turnsPerSecond: number
  /** CPU ms per turn: replicas (with their isolate processes), PostgreSQL, HAProxy. */
  cpu: { replicas: number; postgres: number; haproxy: number }
}

/** Turns/s of `SESSIONS` sessions, `AT_ONCE` at a time, after every replica is warm; CPU per turn by part. */
async function throughput(name: string, replicas: number, cluster: PostgresCluster | undefined, balance?: string): Promise<Measured> {
  const fleet = await startFleet(`bench-${name}`, replicas, cluster?.url, REPLICA_ARGS, balance)
  try {
    // Warm every replica (its compiler, a spare isolate process, the store's pool) before the clock starts.
    await drive(fleet, 0, 2 * replicas, 2 * replicas)
    const cpu0 = fleet.cpuMs()
    const pg0 = pgCpu(cluster)
    const start = performance.now()
    await drive(fleet, 2000, SESSIONS, AT_ONCE)
    const seconds = (performance.now() - start) / 1000
    const cpu1 = fleet.cpuMs()
    const turns = SESSIONS * TURNS
    return {
      turnsPerSecond: turns / seconds,
      cpu: {
        replicas: (cpu1.replicas - cpu0.replicas) / turns,
        haproxy: (cpu1.haproxy - cpu0.haproxy) / turns,
        postgres: (pgCpu(cluster) - pg0) / turns,
      },
    }
  } finally {
    await fleet.close()
  }
}

/**
 * One turn at a time on one replica, embedded store against PostgreSQL: both fleets up at once, their
 * sessions alternating, so load on the machine falls on both alike.
 */
async function latency(cluster: PostgresCluster): Promise<{ embedded: number[]; postgres: number[] }> {
  const embedded = await startFleet('bench-seq-embedded', 1, undefined, REPLICA_ARGS)
  const postgres = await startFleet('bench-seq-pg', 1, cluster.url, REPLICA_ARGS)
  try {
    const out = { embedded: [] as number[], postgres: [] as number[] }
    await drive(embedded, 0, 2, 1)
    await drive(postgres, 0, 2, 1)
    for (let s = 1000; s < 1000 + SEQUENTIAL; s++) {
      out.embedded.push(...(await drive(embedded, s, 1, 1)))
      out.postgres.push(...(await drive(postgres, s, 1, 1)))
    }
    return out
  } finally {
    await Promise.all([embedded.close(), postgres.close()])
  }
}

const cpuNote = (m: Measured) =>
  `CPU ms/turn: replicas ${m.cpu.replicas.toFixed(1)}, PostgreSQL ${m.cpu.postgres.toFixed(1)}, HAProxy ${m.cpu.haproxy.toFixed(2)}`

export default async function replicasBench(): Promise<BenchRow[]> {
  const cluster = await startPostgres('bench32-replicas')
  try {
    const seq = await latency(cluster)
    const embedded = await throughput('embedded', 1, undefined)
    const onPg: Measured[] = []
    for (const n of [1, 2, 3]) onPg.push(await throughput(`pg${n}`, n, cluster))
    const sticky = await throughput('pg3-sticky', 3, cluster, 'hdr(Mcp-Session-Id)')
    const seqBase = 'a turn, 1 replica, embedded store (one at a time)'
    const share = (median(seq.postgres) - median(seq.embedded)) / median(seq.postgres)
    const tpsBase = `turns/s, 1 replica, embedded store (${AT_ONCE} clients)`
    const tps = (name: string, m: Measured, note = '') => ({
      name,
      value: m.turnsPerSecond,
      unit: 'turns/s',
      baseline: tpsBase,
      note: `${cpuNote(m)}${note}`,
    })
    return [
      { name: seqBase, p50Ms: median(seq.embedded), p95Ms: percentile(seq.embedded, 95) },
      {
        name: 'a turn, 1 replica, PostgreSQL store (one at a time)',
        p50Ms: median(seq.postgres),
        p95Ms: percentile(seq.postgres, 95),
        baseline: seqBase,
        note: `the store's share of a turn: ${(share * 100).toFixed(0)}% (p50 difference, ${seq.postgres.length} turns each)`,
      },
      { name: tpsBase, value: embedded.turnsPerSecond, unit: 'turns/s', note: cpuNote(embedded) },
      ...onPg.map((m, i) =>
        tps(`turns/s, ${i + 1} replica${i ? 's' : ''}, PostgreSQL store, round-robin per request (${AT_ONCE} clients)`, m),
      ),
      tps(
        `turns/s, 3 replicas, PostgreSQL store, balanced by Mcp-Session-Id (${AT_ONCE} clients)`,
        sticky,
        '; a session moves only when its replica goes',
      ),
    ]
  } finally {
    await cluster.remove()
  }
}

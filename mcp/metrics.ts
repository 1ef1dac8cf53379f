/**
 * The server's Prometheus metrics (`/metrics`), on a registry of its own (an embedder's default registry is
 * left alone). Runs and tool calls are counted from the runtime's events (runtime/run-watch.ts); gauges that
 * describe the process (sessions, child processes, runs in flight) are read when scraped. The session store
 * counts its failures and restores on `storeErrors` and `sessionsRestored`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { type EventSource, watchRuns } from '../runtime/run-watch.js'

/** Seconds: a trivial run is ~5–50 ms, a run with slow tools minutes (the default deadline is minutes). */
const RUN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
const CALL_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120]

export interface ServerMetrics {
  readonly registry: Registry
  /** Session store operations that failed, by operation (`load`, `append`, `lease` …). */
  readonly storeErrors: Counter<'operation'>
  /** Sessions this replica restored from a history it had not served live. */
  readonly sessionsRestored: Counter
  /** Counts the runs and tool calls of `rt`; returns the function that stops it. */
  watch(rt: EventSource): () => void
  /** What the gauges read when scraped. */
  gauges(sources: GaugeSources): void
  /** The exposition text. */
  text(): Promise<string>
  readonly contentType: string
}

export interface GaugeSources {
  sessionsLive?: () => number
  childProcesses?: () => number
  draining?: () => boolean
}

export function createServerMetrics(options: { processMetrics?: boolean } = {}): ServerMetrics {
  const registry = new Registry()
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const runs = new Counter({
    name: 'codeact_runs_total',
    help: 'Runs finished, by outcome (ok or the run error kind).',
    labelNames: ['outcome'],
    registers,
  })
  const runSeconds = new Histogram({
    name: 'codeact_run_duration_seconds',
    help: 'Wall time of a run, by outcome.',
    labelNames: ['outcome'],
    buckets: RUN_BUCKETS,
    registers,
  })
  const calls = new Counter({
    name: 'codeact_tool_calls_total',
    help: 'Tool calls answered, by tool and outcome (ok or the errno code).',
    labelNames: ['tool', 'outcome'],
    registers,
  })
  const callSeconds = new Histogram({
    name: 'codeact_tool_call_duration_seconds',
    help: 'Time of a tool call, by tool.',
    labelNames: ['tool'],
    buckets: CALL_BUCKETS,
    registers,
  })
  let inFlight = 0
  new Gauge({
    name: 'codeact_runs_in_flight',
    help: 'Runs started and not finished.',
    registers,
    collect() {
      this.set(inFlight)
    },
  })
  const sources: GaugeSources = {}
  const gauge = (name: string, help: string, read: () => number | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read() ?? 0)
      },
    })
  gauge('codeact_sessions_live', 'MCP sessions open on this server.', () => sources.sessionsLive?.())
  gauge('codeact_child_processes', 'Isolate processes serving callers (the warm spare not counted).', () => sources.childProcesses?.())
  gauge('codeact_draining', '1 from SIGTERM until exit.', () => (sources.draining?.() ? 1 : 0))
  return {
    registry,
    storeErrors: new Counter({
      name: 'codeact_store_errors_total',
      help: 'Session store operations that failed.',
      labelNames: ['operation'],
      registers,
    }),
    sessionsRestored: new Counter({
      name: 'codeact_sessions_restored_total',
      help: 'Sessions restored from a history this server had not served live.',
      registers,
    }),
    watch: (rt) =>
      watchRuns(rt, {
        runStarted: () => void inFlight++,
        runEnded(run) {
          inFlight--
          runs.inc({ outcome: run.outcome })
          runSeconds.observe({ outcome: run.outcome }, run.durationMs / 1000)
        },
        callEnded(call) {
          // A program can call any name: unknown ones share one label, so labels stay the registry's size.
          const tool = call.outcome === 'ENOSYS' ? '(unknown)' : call.name
          calls.inc({ tool, outcome: call.outcome })
          callSeconds.observe({ tool }, call.durationMs / 1000)
        },
      }),
    gauges: (given) => void Object.assign(sources, given),
    text: () => registry.metrics(),
    contentType: registry.contentType,
  }
}

/**
 * `codeact mcp --http` as a service: the HTTP server with its operator's routes (readiness of the sandbox,
 * Prometheus metrics), the server log (`--log-format`), and the signals: the first SIGTERM or SIGINT drains
 * (no new sessions, running calls finish within `--drain-timeout`, then are cancelled) and closes; a second
 * one exits at once.
 */
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../mcp/drain.js'
import type { McpExport } from '../mcp/export.js'
import { sandboxCheck } from '../mcp/health.js'
import { createServerMetrics } from '../mcp/metrics.js'
import { serveHttp, type HttpOptions } from '../mcp/serve.js'
import type { Runtime } from '../runtime/create-runtime.js'
import { watchRuns } from '../runtime/run-watch.js'
import { type SessionStore, storeReady } from '../runtime/store/types.js'
import { createServiceLog, logFormatFromFlag, type LogFormat } from './service-log.js'

export interface OpsOptions {
  drainTimeoutMs: number
  logFormat: LogFormat
}

/** `--drain-timeout` (HTTP only) and `--log-format`. */
export function opsOptions(
  values: { 'drain-timeout'?: string | undefined; 'log-format'?: string | undefined },
  port: number | undefined,
  stderrIsTty: boolean,
): { ok: true; value: OpsOptions } | { ok: false; message: string } {
  const text = values['drain-timeout']
  if (text !== undefined && port === undefined) return { ok: false, message: '--drain-timeout applies to --http only' }
  const n = text === undefined ? DEFAULT_DRAIN_TIMEOUT_MS : Number(text)
  if (!Number.isSafeInteger(n) || n < 0)
    return { ok: false, message: `--drain-timeout needs a whole number of milliseconds, got "${text}"` }
  // Over stdio the default stays the text a person (or an MCP host's log pane) has always read.
  const format = logFormatFromFlag(values['log-format'], port === undefined || stderrIsTty)
  if (format !== 'json' && format !== 'text') return { ok: false, message: format }
  return { ok: true, value: { drainTimeoutMs: n, logFormat: format } }
}

/** Serves until a signal; `stopped` resolves once drained and closed. */
export async function serveService(
  rt: Runtime,
  exported: McpExport,
  http: HttpOptions,
  ops: OpsOptions,
  io: { stderr: NodeJS.WritableStream },
): Promise<{ stopped: Promise<void> }> {
  const log = createServiceLog(ops.logFormat, io.stderr)
  const metrics = createServerMetrics()
  const offMetrics = metrics.watch(rt)
  const offLog = watchRuns(rt, { runEnded: (run) => log.run(run) })
  // The isolate backend's count, read at each scrape (the getter answers a fresh snapshot).
  const sandbox = rt.sandbox as { processes?: { leased: number } }
  if (sandbox.processes) metrics.gauges({ childProcesses: () => sandbox.processes?.leased ?? 0 })
  const serving = await serveHttp(exported, {
    ...http,
    collectWhenIdle: true,
    store: rt.store,
    readiness: [sandboxCheck(rt.sandbox), ...(rt.store.kind === 'embedded' ? [] : [storeCheck(rt.store)])],
    metrics,
    log: (level, msg, fields) => log.line(level, msg, fields),
  })
  // Before the URL line: a client reading stderr has the token by the time it knows where to connect.
  if (http.token === undefined && serving.token !== undefined) {
    log.line('info', `every request needs Authorization: Bearer ${serving.token}`, { token: serving.token })
    log.line('info', '(a token generated for this start; set your own with --token or CODEACT_MCP_TOKEN)')
  }
  if (serving.token === undefined)
    log.line('warn', 'warning: --no-token: any local user and any web page open in a browser on this machine can call run_code')
  log.line('info', `serving streamable HTTP at ${serving.url}`, { url: serving.url, port: serving.port })
  const stopped = firstSignal().then(async (signal) => {
    log.line('info', `${signal}: draining (a second signal stops at once)`, { signal })
    await serving.drain(ops.drainTimeoutMs)
    await serving.close()
    offMetrics()
    offLog()
    log.line('info', 'stopped')
  })
  return { stopped }
}

/** The first SIGTERM or SIGINT; a second one exits the process at once (128 + the signal's number). */
function firstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', first)
      process.off('SIGINT', first)
      const again = (s: NodeJS.Signals) => process.exit(s === 'SIGINT' ? 130 : 143)
      process.once('SIGTERM', again)
      process.once('SIGINT', again)
      resolve(signal)
    }
    process.on('SIGTERM', first)
    process.on('SIGINT', first)
  })
}

/** `/readyz`'s `store` check: the session store answers (a shared one; the embedded store always does). */
function storeCheck(store: SessionStore): { name: string; check(): Promise<string | undefined> } {
  return {
    name: 'store',
    check: async () => {
      const ready = await storeReady(store)
      return ready.ok ? undefined : ready.reason
    },
  }
}

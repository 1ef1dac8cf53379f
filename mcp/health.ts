/**
 * The operator's routes of the HTTP server: `/healthz` (the process serves), `/readyz` (it can take work:
 * not draining, and every readiness check passes) and `/metrics` (Prometheus). They answer a kubelet or a
 * scraper, which has neither the bearer token nor a loopback Host, so they skip the guard of `/mcp`; in
 * exchange they say nothing but check names and yes/no (why a check failed goes to the server's log, which
 * may name a database host), send no CORS headers, and answer only GET and HEAD.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Sandbox } from '../sandbox/types.js'
import type { ServerMetrics } from './metrics.js'

/** A named question `/readyz` asks: undefined when ready, else why not (for the log). */
export interface ReadinessCheck {
  name: string
  check(): Promise<string | undefined>
}

/** A check that has not answered by then counts as failed: a probe must not hang on a stuck dependency. */
export const READINESS_CHECK_TIMEOUT_MS = 5_000

export const OPS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics'])

/** The sandbox can start a run (a child process can be spawned; the Docker engine answers). */
export function sandboxCheck(sandbox: Sandbox): ReadinessCheck {
  return { name: 'sandbox', check: async () => (sandbox.ready ? sandbox.ready() : undefined) }
}

export interface OpsState {
  checks: readonly ReadinessCheck[]
  draining(): boolean
  metrics: ServerMetrics | undefined
  /** Called when a check's answer changes, with why it failed (or undefined: it passes again). */
  onCheckChange(name: string, failure: string | undefined): void
}

interface Readiness {
  ready: boolean
  draining: boolean
  checks: { name: string; ok: boolean }[]
}

/** Answers one of OPS_PATHS. */
export async function serveOps(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  ops: OpsState,
  ask: () => Promise<Readiness>,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, { error: `${path} answers GET only` }, { allow: 'GET, HEAD' })
  if (path === '/healthz') return plain(res, 200, { status: 'ok' })
  if (path === '/readyz') {
    const r = await ask()
    return plain(res, r.ready ? 200 : 503, r)
  }
  if (!ops.metrics) return plain(res, 404, { error: 'metrics are off' })
  const text = await ops.metrics.text()
  res.writeHead(200, { 'content-type': ops.metrics.contentType, 'cache-control': 'no-store' })
  res.end(req.method === 'HEAD' ? undefined : text)
}

/**
 * The readiness answer, one evaluation at a time: probes that arrive while one runs share its answer, so a
 * flood of `/readyz` requests costs one round of checks, not one per request.
 */
export function readinessProbe(ops: OpsState): () => Promise<Readiness> {
  let running: Promise<Readiness> | undefined
  const last = new Map<string, string | undefined>()
  const evaluate = async (): Promise<Readiness> => {
    const answers = await Promise.all(ops.checks.map((c) => runCheck(c)))
    const checks = ops.checks.map((c, i) => {
      const failure = answers[i]
      if (last.get(c.name) !== failure) ops.onCheckChange(c.name, failure)
      last.set(c.name, failure)
      return { name: c.name, ok: failure === undefined }
    })
    const draining = ops.draining()
    return { ready: !draining && checks.every((c) => c.ok), draining, checks }
  }
  return () => {
    running ??= evaluate().finally(() => {
      running = undefined
    })
    return running
  }
}

async function runCheck(c: ReadinessCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READINESS_CHECK_TIMEOUT_MS} ms`), READINESS_CHECK_TIMEOUT_MS)
  })
  try {
    return await Promise.race([c.check().catch((e: unknown) => (e instanceof Error ? e.message : String(e)) || 'failed'), late])
  } finally {
    clearTimeout(timer)
  }
}

function plain(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
  res.end(JSON.stringify(body))
}

/**
 * Serving an MCP export: over stdio (one client, the parent process), or over streamable HTTP on
 * 127.0.0.1 only (many clients, one session and one protocol server each, all sharing the runtime).
 * Over HTTP every request first passes the guard (Host, Origin, token, body size: http-guard.ts; the
 * bodies of all requests together: http-body-budget.ts); a bearer token is required unless the caller
 * says `token: false` (one is generated when none is given: any local user, and any page a browser on
 * this machine shows, can reach a loopback port); sessions are capped and expire when idle
 * (http-sessions.ts); a client that closes a response stream before its answer cancels the requests on
 * it (the run stops, every pending call is answered). `/healthz`, `/readyz` and `/metrics` are the
 * operator's (health.ts): they skip the guard and tell nothing else. `drain()` stops new sessions and lets
 * the calls in flight finish for a bound (drain.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { context, propagation } from '@opentelemetry/api'
import { noteHostActivity } from '../runtime/host-quiet.js'
import type { McpExport } from './export.js'
import { BodyBudget, BODY_RETRY_AFTER_S, DEFAULT_MAX_BODIES_IN_FLIGHT_BYTES } from './http-body-budget.js'
import { bearerCheck, checkHost, checkOrigin, normalizeOrigin, readJsonBody, type Refusal } from './http-guard.js'
import { SessionTable } from './http-sessions.js'
import { DEFAULT_DRAIN_TIMEOUT_MS, drainCalls, type Drained } from './drain.js'
import { OPS_PATHS, readinessProbe, serveOps, type ReadinessCheck } from './health.js'
import type { ServerMetrics } from './metrics.js'
import { sessionTaker } from './http-adopt.js'
import type { SessionStore } from '../runtime/store/types.js'

/** Serves on this process's stdin/stdout; resolves when the client closes stdin or a signal arrives. */
export async function serveStdio(mcp: McpExport): Promise<void> {
  const server = mcp.createServer({ caller: `stdio_${randomUUID()}` })
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose
    server.onclose = () => {
      previous?.()
      resolve()
    }
  })
  const transport = new StdioServerTransport()
  // The SDK transport does not notice the end of stdin; a client that hangs up closes stdin first.
  const stop = () => void transport.close()
  process.stdin.once('end', stop)
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  await server.connect(transport)
  await closed
  process.stdin.off('end', stop)
  process.off('SIGTERM', stop)
  process.off('SIGINT', stop)
}

export interface HttpOptions {
  /** 0 picks a free port. */
  port: number
  /**
   * The address to listen on (default 127.0.0.1). A loopback address answers only to a loopback Host (the
   * DNS-rebinding rule); any other (`0.0.0.0` in a container behind a load balancer) takes any Host, since
   * a browser page cannot be told the bearer token and the network reaches the port anyway.
   */
  host?: string
  /**
   * The process is codeact's own (`codeact mcp`): requests count as activity for the quiet-time collection
   * (runtime/host-quiet.ts), so a session flood's memory is given back. Off in an embedder's process.
   */
  collectWhenIdle?: boolean
  /** Browser origins allowed besides loopback pages (`https://app.example:8443`). Default none. */
  allowedOrigins?: readonly string[]
  /**
   * The token every request must bear (`Authorization: Bearer <token>`). Not given: one is generated
   * (HttpServing.token). `false`: none is asked for — any local process and any page a local browser shows
   * may then call run_code.
   */
  token?: string | false
  /** Sessions at once (default 100); a new one replaces the least recently used idle one. */
  maxSessions?: number
  /** A session without a request for this long is closed (default 30 minutes). */
  sessionIdleMs?: number
  /** Largest request body (default 4 MiB); larger is answered 413. */
  maxBodyBytes?: number
  /** Bytes of request bodies held at once across all requests (default 64 MiB); past it, 503 + Retry-After. */
  maxBodiesInFlightBytes?: number
  /** What `/readyz` asks besides "not draining" (mcp/health.ts; the CLI adds the sandbox's). Default none. */
  readiness?: readonly ReadinessCheck[]
  /** Served at `/metrics`; absent: `/metrics` answers 404. */
  metrics?: ServerMetrics
  /** The server's own log: a readiness check that starts or stops failing, the drain. */
  log?: (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void
  /**
   * A shared session store (`rt.store` with `--store postgres://…`): any replica takes up a session another
   * started (mcp/http-adopt.ts), and responses are kept for `Last-Event-ID` resumption on any replica.
   */
  store?: SessionStore
}

export interface HttpServing {
  /** `http://HOST:PORT/mcp` (127.0.0.1 unless another host was given) */
  url: string
  port: number
  /** The bearer token requests must show (the one given, or the one generated); undefined with `token: false`. */
  token: string | undefined
  /** Sessions open now. */
  sessions(): number
  /** Adds a check `/readyz` asks (the session store's reachability …). */
  addReadinessCheck(check: ReadinessCheck): void
  /** Runs at close, after the sessions closed and before the port does (a store releases its leases). */
  onClose(hook: () => Promise<void>): void
  /**
   * Stops taking new sessions at once (`initialize` → 503 + Retry-After, `/readyz` → 503), lets the calls
   * in flight finish for up to `timeoutMs` (default 25 s), then cancels what is left. Sessions stay open
   * until `close`.
   */
  drain(timeoutMs?: number): Promise<Drained>
  readonly draining: boolean
  close(): Promise<void>
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

interface HttpSession {
  id: string
  transport: StreamableHTTPServerTransport
  close(): Promise<void>
}

/** Serves streamable HTTP at `/mcp` on 127.0.0.1 (or `options.host`). */
export async function serveHttp(mcp: McpExport, options: HttpOptions): Promise<HttpServing> {
  const sessions = new SessionTable<HttpSession>({
    ...(options.maxSessions !== undefined ? { max: options.maxSessions } : {}),
    ...(options.sessionIdleMs !== undefined ? { idleMs: options.sessionIdleMs } : {}),
  })
  const allowedOrigins = new Set((options.allowedOrigins ?? []).map(normalizeOrigin))
  const token = options.token === false ? undefined : options.token || randomBytes(32).toString('base64url')
  const checkToken = token === undefined ? undefined : bearerCheck(token)
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const bodies = new BodyBudget(options.maxBodiesInFlightBytes ?? DEFAULT_MAX_BODIES_IN_FLIGHT_BYTES)
  let port = options.port
  const bind = options.host ?? '127.0.0.1'
  const hostChecked = isLoopback(bind)
  let draining = false
  const closeHooks: (() => Promise<void>)[] = []
  const log = options.log ?? (() => {})
  const ops = {
    checks: [...(options.readiness ?? [])],
    draining: () => draining,
    metrics: options.metrics,
    onCheckChange: (name: string, failure: string | undefined) =>
      failure === undefined
        ? log('info', `readiness check ${name} passes again`, { check: name })
        : log('warn', `readiness check ${name} fails: ${failure}`, { check: name, reason: failure }),
  }
  const ready = readinessProbe(ops)
  options.metrics?.gauges({ sessionsLive: () => sessions.size, draining: () => draining })
  const shared = options.store?.mcp

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (options.collectWhenIdle === true) noteHostActivity()
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    if (OPS_PATHS.has(path)) return serveOps(req, res, path, ops, ready)
    if (path !== '/mcp') return refuse(res, { status: 404, message: 'not found: the MCP endpoint is /mcp' })
    const origin = header(req, 'origin')
    const denied = (hostChecked ? checkHost(req, port) : undefined) ?? checkOrigin(origin, allowedOrigins)
    if (denied) return refuse(res, denied)
    if (origin !== undefined) allowCors(res, origin)
    if (req.method === 'OPTIONS') return preflight(res)
    const unauthorized = checkToken?.(req)
    if (unauthorized) return refuse(res, unauthorized)

    const sessionId = header(req, 'mcp-session-id')
    const taken = sessionId && !sessions.get(sessionId) ? await takeUp?.(sessionId) : undefined
    if (taken && !taken.ok) return refuse(res, taken)
    const existing = sessionId ? sessions.get(sessionId) : undefined
    const unknown = (id: string): Refusal => ({ status: 404, message: sessions.whyGone(id) ?? 'unknown session' })
    if (req.method !== 'POST') {
      if (!existing) return refuse(res, sessionId ? unknown(sessionId) : { status: 400, message: 'missing mcp-session-id' })
      return existing.transport.handleRequest(req, res)
    }
    const body = await readJsonBody(req, maxBody, bodies)
    if (!body.ok)
      // The rest of a refused body is not read: the connection closes after the answer.
      return refuse(res, {
        status: body.status,
        message: body.message,
        ...(body.status === 413 ? { headers: { connection: 'close' } } : {}),
        ...(body.status === 503 ? { headers: { connection: 'close', 'retry-after': String(BODY_RETRY_AFTER_S) } } : {}),
      })
    if (existing) {
      cancelWhenAbandoned(res, existing.transport, requestIds(body.value), sessions.busy(existing.id))
      return existing.transport.handleRequest(req, res, body.value)
    }
    if (sessionId) return refuse(res, unknown(sessionId))
    if (!isInitializeRequest(body.value)) return refuse(res, { status: 400, message: 'the first request of a session must be initialize' })
    if (draining)
      return refuse(res, {
        status: 503,
        message: 'this server is shutting down and takes no new sessions; try another',
        headers: { 'retry-after': '1' },
      })
    if (!sessions.reserve())
      return refuse(res, { status: 503, message: 'too many sessions, all busy; try again later', headers: { 'retry-after': '5' } })

    const id = randomUUID()
    const { transport, server, added } = await open(id, async () => shared?.saveSession(id, body.value))
    try {
      await transport.handleRequest(req, res, body.value)
    } finally {
      // A refused initialize leaves no session behind.
      if (!added()) {
        sessions.release()
        await server.close()
      }
    }
  }

  /** A protocol server and transport for session `id`, in the table once initialized. */
  const open = async (id: string, initialized: () => Promise<void>) => {
    const server = mcp.createServer({ caller: id })
    let added = false
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      ...(shared ? { eventStore: shared.forSession?.(id) ?? shared } : {}),
      // DELETE by the client: the session ends for every replica (a drain or an idle close ends it only here).
      ...(shared?.forgetSession ? { onsessionclosed: (sid: string) => shared.forgetSession?.(sid) } : {}),
      onsessioninitialized: async () => {
        await initialized()
        added = true
        sessions.add({ id, transport, close: () => server.close() })
      },
    })
    transport.onclose = () => sessions.delete(id)
    await server.connect(transport)
    return { transport, server, added: () => added }
  }

  const takeUp = shared ? sessionTaker(shared, sessions, open) : undefined

  const http = createServer((req, res) => {
    // A caller's W3C `traceparent`: runs this request starts are spans of its trace (runtime/otel-spans.ts).
    // Without a registered propagator (no --otel) this is the context as it was.
    const traced = propagation.extract(context.active(), req.headers)
    context
      .with(traced, () => handle(req, res))
      .catch((e: unknown) => {
        if (!res.headersSent) refuse(res, { status: 500, message: e instanceof Error ? e.message : String(e) })
        else res.end()
      })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port, bind, () => resolve())
  })
  port = (http.address() as AddressInfo).port
  return {
    url: `http://${bind.includes(':') ? `[${bind}]` : bind}:${port}/mcp`,
    port,
    token,
    sessions: () => sessions.size,
    addReadinessCheck: (check) => void ops.checks.push(check),
    onClose: (hook) => void closeHooks.push(hook),
    get draining() {
      return draining
    },
    drain: async (timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) => {
      draining = true
      log('info', 'draining: no new sessions; waiting for the calls in flight', { inFlight: mcp.inFlight(), drainTimeoutMs: timeoutMs })
      const drained = await drainCalls(mcp, timeoutMs)
      log(drained.cancelled ? 'warn' : 'info', `drained in ${drained.waitedMs} ms; ${drained.cancelled} calls cancelled`, { ...drained })
      return drained
    },
    close: async () => {
      draining = true
      await sessions.closeAll()
      for (const hook of closeHooks)
        await hook().catch((e: unknown) => log('warn', `a close hook failed: ${e instanceof Error ? e.message : String(e)}`))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

function isLoopback(host: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|::1)$/i.test(host)
}

/**
 * The current MCP spec: a client that closes the response stream of a request has cancelled it. Only
 * requests still unanswered are cancelled (a stream closed after its answer is just done).
 */
function cancelWhenAbandoned(res: ServerResponse, transport: StreamableHTTPServerTransport, ids: RequestId[], done: () => void): void {
  res.once('close', () => {
    done()
    if (res.writableEnded) return
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the client closed the response stream' },
      })
    }
  })
}

function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body]
  const ids: RequestId[] = []
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || typeof (m as { method?: unknown }).method !== 'string') continue
    const id = (m as { id?: unknown }).id
    if (typeof id === 'string' || typeof id === 'number') ids.push(id)
  }
  return ids
}

function allowCors(res: ServerResponse, origin: string): void {
  res.setHeader('access-control-allow-origin', origin)
  res.setHeader('vary', 'Origin')
  res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, www-authenticate')
}

function preflight(res: ServerResponse): void {
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, POST, DELETE',
    'access-control-allow-headers': 'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id',
    'access-control-max-age': '600',
  })
  res.end()
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null }))
}

/**
 * Serving an MCP export: over stdio (one client, the parent process), or over streamable HTTP on
 * 127.0.0.1 only (many clients, one session and one protocol server each, all sharing the runtime).
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import type { McpExport } from './export.js'

/** Serves on this process's stdin/stdout; resolves when the client closes stdin or a signal arrives. */
export async function serveStdio(mcp: McpExport): Promise<void> {
  const server = mcp.createServer()
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

export interface HttpServing {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string
  port: number
  close(): Promise<void>
}

const MAX_BODY = 8 * 1024 * 1024

/** Serves streamable HTTP at `/mcp` on 127.0.0.1 (`port` 0 picks a free one). */
export async function serveHttp(mcp: McpExport, options: { port: number }): Promise<HttpServing> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  let port = options.port

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp')
    const sessionId = header(req, 'mcp-session-id')
    const existing = sessionId ? sessions.get(sessionId) : undefined
    if (req.method !== 'POST') {
      if (!existing) return reply(res, sessionId ? 404 : 400, sessionId ? 'unknown session' : 'missing mcp-session-id')
      return existing.handleRequest(req, res)
    }
    const body = await readJson(req)
    if (!body.ok) return reply(res, body.status, body.message)
    if (existing) return existing.handleRequest(req, res, body.value)
    if (sessionId) return reply(res, 404, 'unknown session')
    if (!isInitializeRequest(body.value)) return reply(res, 400, 'the first request of a session must be initialize')
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      // Only local pages may talk to it: the Host header must name this loopback port.
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    })
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
    }
    await mcp.createServer().connect(transport)
    await transport.handleRequest(req, res, body.value)
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) reply(res, 500, e instanceof Error ? e.message : String(e))
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port, '127.0.0.1', () => resolve())
  })
  port = (http.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

async function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) return { ok: false, status: 413, message: 'request body too large' }
    chunks.push(chunk as Buffer)
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }
  } catch {
    return { ok: false, status: 400, message: 'the body is not JSON' }
  }
}

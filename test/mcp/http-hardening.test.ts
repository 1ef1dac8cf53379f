/**
 * The HTTP server's guard, attacked through real clients (fetch, and the official SDK client): foreign
 * Origins (DNS rebinding), the bearer token, oversized bodies, and the session cap and idle expiry.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp, type HttpOptions, type HttpServing } from '../../mcp/serve.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import tools from './fixtures/tools.js'
import { MCP_HEADERS, initializeBody, openSession } from './http-helpers.js'

const TOKEN = 'correct-horse-battery-staple-42'

describe('MCP over HTTP: the guard', () => {
  let rt: Runtime
  const servings: HttpServing[] = []
  const clients: Client[] = []

  async function serve(options: Omit<HttpOptions, 'port'> = {}): Promise<HttpServing> {
    const serving = await serveHttp(createMcpExport(rt), { port: 0, token: false, ...options })
    servings.push(serving)
    return serving
  }
  async function client(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const c = new Client({ name: 'guard-test', version: '1.0.0' })
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
    clients.push(c)
    return c
  }
  const post = (url: string, headers: Record<string, string>, body = initializeBody()) =>
    fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body })

  beforeAll(async () => {
    rt = await createRuntime({ tools, typecheck: 'off' })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})))
    await Promise.all(servings.map((s) => s.close()))
    await rt?.close()
  })

  it('refuses a foreign Origin in every spelling, before any session exists', async () => {
    const serving = await serve({ allowedOrigins: ['https://app.example'] })
    const foreign = [
      'https://evil.example',
      'null', // sandboxed frames and file:// pages
      'http://127.0.0.1.evil.example',
      'http://localhost.evil.example:8080',
      'https://app.example.evil.example',
      'http://app.example', // listed with https only
      'ftp://localhost',
      'http://evil.example#@localhost',
    ]
    for (const origin of foreign) {
      const res = await post(serving.url, { origin })
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 })
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('forbidden Origin')
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    }
    // A preflight from a foreign page is refused too, so the browser never sends the real request.
    const preflight = await fetch(serving.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    expect(serving.sessions()).toBe(0)
  })

  it('lets loopback pages, listed origins and non-browser clients in', async () => {
    const serving = await serve({ allowedOrigins: ['https://app.example'] })
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:6274', 'http://[::1]:3000', 'https://app.example']) {
      const res = await post(serving.url, { origin })
      expect({ origin, status: res.status }).toEqual({ origin, status: 200 })
      expect(res.headers.get('access-control-allow-origin')).toBe(origin)
      await res.text()
    }
    const preflight = await fetch(serving.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id')
    // The SDK client in Node sends no Origin at all.
    const c = await client(serving.url)
    expect((await c.listTools()).tools[0]!.name).toBe('run_code')
  })

  it('requires the bearer token: 401 with WWW-Authenticate otherwise, compared whole', async () => {
    const serving = await serve({ token: TOKEN })
    const cases: [string, Record<string, string>, string][] = [
      ['none', {}, 'Bearer realm="codeact"'],
      ['wrong', { authorization: 'Bearer not-the-token-at-all-000' }, 'Bearer realm="codeact", error="invalid_token"'],
      ['prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }, 'Bearer realm="codeact", error="invalid_token"'],
      ['longer', { authorization: `Bearer ${TOKEN}x` }, 'Bearer realm="codeact", error="invalid_token"'],
      ['basic', { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` }, 'Bearer realm="codeact"'],
      ['two words', { authorization: `Bearer ${TOKEN} ${TOKEN}` }, 'Bearer realm="codeact"'],
    ]
    for (const [what, headers, challenge] of cases) {
      const res = await post(serving.url, headers)
      expect({ what, status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({ what, status: 401, challenge })
      await res.text()
    }
    // Every request of a session needs it, not only initialize.
    const session = await openSession(serving.url, { authorization: `Bearer ${TOKEN}` })
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const stolen = await post(serving.url, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, list)
    expect(stolen.status).toBe(401)
    await stolen.text()

    await expect(client(serving.url)).rejects.toThrow()
    const c = await client(serving.url, { authorization: `bearer ${TOKEN}` })
    const result = (await c.callTool({ name: 'run_code', arguments: { code: 'return 6 * 7' } })) as CallToolResult
    expect((result.structuredContent as { value: number }).value).toBe(42)
  })

  it('answers 413 to a body over the limit, whether it says its length or streams it, and keeps serving', async () => {
    const serving = await serve({ maxBodyBytes: 64 * 1024 })
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(200 * 1024) } })
    const declared = await post(serving.url, {}, big)
    expect(declared.status).toBe(413)
    expect(await declared.text()).toContain('65536-byte limit')
    // Chunked: no Content-Length, the server counts as it reads.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(16 * 1024)))
        controller.close()
      },
    })
    const streamed = await fetch(serving.url, { method: 'POST', headers: MCP_HEADERS, body: chunks, duplex: 'half' } as RequestInit)
    expect(streamed.status).toBe(413)
    await streamed.text()

    // Through the SDK client: a program over the limit fails that call; the session goes on.
    const c = await client(serving.url)
    await expect(c.callTool({ name: 'run_code', arguments: { code: `return '${'y'.repeat(100 * 1024)}'.length` } })).rejects.toThrow(
      /larger than the 65536-byte limit/,
    )
    const after = (await c.callTool({ name: 'run_code', arguments: { code: 'return 1 + 1' } })) as CallToolResult
    expect((after.structuredContent as { value: number }).value).toBe(2)
  })

  it('caps sessions: the least recently used idle one makes room, busy ones are never cut off', async () => {
    const serving = await serve({ maxSessions: 3 })
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(await openSession(serving.url))
    expect(serving.sessions()).toBe(3)
    const list = (id: string) =>
      post(
        serving.url,
        { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      )
    const statuses = []
    for (const id of ids) {
      const res = await list(id)
      statuses.push(res.status)
      await res.text()
    }
    expect(statuses).toEqual([404, 404, 404, 200, 200, 200])

    // Three sessions each with a run in flight: a fourth initialize is refused rather than evicting one.
    const busy = await Promise.all([0, 1, 2].map(() => client(serving.url)))
    const controllers = busy.map(() => new AbortController())
    const runs = busy.map((c, i) =>
      c
        .callTool({ name: 'run_code', arguments: { code: 'await tools.sleep({ ms: 60000 })' } }, undefined, {
          signal: controllers[i]!.signal,
        })
        .catch(() => 'cancelled'),
    )
    await expect
      .poll(() => rt.log.all().filter((e) => e.type === 'tool/call' && (e.data as { name: string }).name === 'sleep').length, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(3)
    const refused = await post(serving.url, {})
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    await refused.text()
    for (const c of controllers) c.abort()
    expect(await Promise.all(runs)).toEqual(['cancelled', 'cancelled', 'cancelled'])
  })

  it('closes a session idle for longer than the limit', async () => {
    const serving = await serve({ sessionIdleMs: 300 })
    const id = await openSession(serving.url)
    expect(serving.sessions()).toBe(1)
    await expect.poll(() => serving.sessions(), { timeout: 10_000, interval: 100 }).toBe(0)
    const res = await post(
      serving.url,
      { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(res.status).toBe(404)
    await res.text()
  })
})

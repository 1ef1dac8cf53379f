/**
 * The export over streamable HTTP on 127.0.0.1, driven by the official SDK client: concurrent runs from two
 * clients, console output reaching only its own client, cancellation, and importing the served tools back
 * over HTTP into a second runtime.
 */
import { request } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import type { EventData } from '../../vocabulary/types.js'
import { attachMcp } from '../../mcp/attach.js'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp, type HttpServing } from '../../mcp/serve.js'
import tools from './fixtures/tools.js'

describe('export over streamable HTTP', () => {
  let rt: Runtime
  let serving: HttpServing
  const clients: Client[] = []

  async function connect(logs: string[] = []): Promise<Client> {
    const client = new Client({ name: `http-test-${clients.length}`, version: '1.0.0' })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)))
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)))
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    rt = await createRuntime({ tools })
    serving = await serveHttp(createMcpExport(rt, { exposeTools: true }), { port: 0, token: false })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await serving?.close()
    await rt?.close()
  })

  it('serves on 127.0.0.1 and lists run_code with the SDK', async () => {
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = await connect()
    const { tools: listed } = await client.listTools()
    expect(listed.map((t) => t.name)).toEqual(['run_code', 'echo', 'increment', 'sleep'])
    expect(listed[0]!.description).toContain('sleep(args: { ms: number }): Promise<unknown>')
  })

  it('runs programs from two clients at once, each client hearing only its own console', async () => {
    const logsA: string[] = []
    const logsB: string[] = []
    const [a, b] = await Promise.all([connect(logsA), connect(logsB)])
    const program = (who: string) => `
      console.log('hello from ${who}')
      await tools.sleep({ ms: 300 })
      const n = await tools.increment({ by: 1 })
      return { who: '${who}', n }
    `
    const [ra, rb] = (await Promise.all([
      a.callTool({ name: 'run_code', arguments: { code: program('A') } }),
      b.callTool({ name: 'run_code', arguments: { code: program('B') } }),
    ])) as CallToolResult[]
    const va = (ra!.structuredContent as { value: { who: string; n: number } }).value
    const vb = (rb!.structuredContent as { value: { who: string; n: number } }).value
    expect([va.who, vb.who]).toEqual(['A', 'B'])
    expect([va.n, vb.n].sort()).toEqual([1, 2])
    expect(logsA).toEqual(['hello from A'])
    expect(logsB).toEqual(['hello from B'])
  })

  it('sends console lines as progress when the client asks for progress', async () => {
    const client = await connect()
    const progress: string[] = []
    await client.callTool({ name: 'run_code', arguments: { code: `console.log('one'); console.log('two'); return 1` } }, undefined, {
      onprogress: (p) => void progress.push(String(p.message)),
    })
    expect(progress).toEqual(['one', 'two'])
  })

  it('aborts a run cancelled by the client and answers its pending call', async () => {
    const client = await connect()
    const controller = new AbortController()
    const started = new Promise<void>((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, () => resolve()))
    const firstSeq = rt.log.length
    const call = client.callTool(
      { name: 'run_code', arguments: { code: `const slept = tools.sleep({ ms: 60000 }); console.log('go'); await slept` } },
      undefined,
      { signal: controller.signal },
    )
    await started
    controller.abort()
    await expect(call).rejects.toThrow()
    await expect.poll(() => rt.log.since(firstSeq).some((e) => e.type === 'run/end')).toBe(true)
    const events = rt.log.since(firstSeq)
    const end = events.find((e) => e.type === 'run/end')!.data as EventData['run/end']
    expect(end.error?.kind).toBe('aborted')
    const results = events.filter((e) => e.type === 'tool/result').map((e) => (e.data as EventData['tool/result']).result)
    expect(results).toEqual([{ ok: false, error: { code: 'ECANCELED', message: expect.any(String) } }])
  })

  it('is imported back over HTTP as ordinary tools of a second runtime', async () => {
    const other = await createRuntime({ typecheck: 'off' })
    const mcp = await attachMcp(other, { remote: { url: serving.url } })
    try {
      expect(mcp.failures).toEqual([])
      expect(other.tools.names()).toEqual(['remote__echo', 'remote__increment', 'remote__run_code', 'remote__sleep'])
      const result = await other.runCode(`
        const echoed = await tools.remote__echo({ text: 'round trip' })
        const nested = await tools.remote__run_code({ code: 'return 6 * 7' })
        let bad = ''
        try { await tools.remote__echo({ text: 5 } as any) } catch (e) { bad = e.code + ' ' + e.message }
        return { echoed, nested, bad }
      `)
      expect(result.error).toBeNull()
      const value = result.value as { echoed: string; nested: unknown; bad: string }
      expect(value.echoed).toBe('round trip')
      // run_code answers with structuredContent (the RunResult), which import prefers to the text.
      expect(value.nested).toMatchObject({ ok: true, value: 42, error: null })
      // Checked here against the schema the server listed, before any request went out.
      expect(value.bad).toBe('EINVAL remote__echo: invalid arguments: text: expected string, got number 5')
    } finally {
      await mcp.close()
      await other.close()
    }
  })

  it('refuses requests whose Host is not the loopback address (DNS rebinding)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        serving.url,
        {
          method: 'POST',
          headers: { host: 'evil.example:80', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      )
    })
    expect(status).toBe(403)
  })
})

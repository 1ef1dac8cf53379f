/**
 * MCP to the spec over streamable HTTP, with the official SDK client and raw fetch: run_code's capped
 * structuredContent (checked by the client against the outputSchema it declares), setLevel per session,
 * every notification of a run before its result (read off the wire), a client that goes away cancels
 * its run, list_changed on registry changes, and exposed tools with outputSchema and annotations.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpExport, type McpExport } from '../../mcp/export.js'
import { serveHttp, type HttpServing } from '../../mcp/serve.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import type { EventData, RunEvent } from '../../vocabulary/types.js'
import tools from './fixtures/tools.js'
import { tempDir } from './helpers.js'
import { MCP_HEADERS, openSession, sseMessages } from './http-helpers.js'

const WAITING = `const both = Promise.all([tools.sleep({ ms: 60000 }), tools.sleep({ ms: 60000 })]); console.log('waiting'); await both; return 'finished'`

describe('MCP to the spec over HTTP', () => {
  let rt: Runtime
  let serving: HttpServing
  let exported: McpExport
  let dir: string
  const clients: Client[] = []

  async function connect(): Promise<Client> {
    const client = new Client({ name: `spec-${clients.length}`, version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)))
    clients.push(client)
    return client
  }
  /** The events of the run whose program contains `marker`, once it has ended. */
  async function runEvents(marker: string): Promise<RunEvent[]> {
    let events: RunEvent[] = []
    await expect
      .poll(
        () => {
          const start = rt.log.all().find((e) => e.type === 'run/start' && (e.data as EventData['run/start']).code.includes(marker))
          if (!start) return false
          const runId = (start.data as EventData['run/start']).runId
          events = rt.log.since(start.seq - 1).filter((e) => JSON.stringify(e.data).includes(runId))
          return events.some((e) => e.type === 'run/end')
        },
        { timeout: 20_000 },
      )
      .toBe(true)
    return events
  }
  function expectCancelled(events: RunEvent[]): void {
    const end = events.find((e) => e.type === 'run/end')!.data as EventData['run/end']
    expect(end.error?.kind).toBe('aborted')
    const results = events.filter((e) => e.type === 'tool/result').map((e) => (e.data as EventData['tool/result']).result)
    expect(results).toEqual([
      { ok: false, error: { code: 'ECANCELED', message: expect.any(String) } },
      { ok: false, error: { code: 'ECANCELED', message: expect.any(String) } },
    ])
  }

  beforeAll(async () => {
    dir = tempDir('codeact-mcp-spec-')
    writeFileSync(join(dir, 'big.txt'), 'a'.repeat(5_000_000))
    rt = await createRuntime({ tools, workspace: { root: dir }, typecheck: 'off' })
    exported = createMcpExport(rt, { exposeTools: true })
    serving = await serveHttp(exported, { port: 0, token: false })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})))
    await serving?.close()
    await rt?.close()
  })

  it('declares run_code’s outputSchema and sends a small structuredContent for a program that read 5 MB', async () => {
    const client = await connect()
    const { tools: listed } = await client.listTools()
    const runCode = listed.find((t) => t.name === 'run_code')!
    expect(runCode.outputSchema).toMatchObject({ type: 'object', required: ['ok', 'error', 'calls'] })
    // listTools made the client check every structuredContent against that schema from here on.
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { code: `const text = await tools.read_file({ path: 'big.txt' }); return text.length` },
    })) as CallToolResult
    expect(result.structuredContent).toEqual({
      ok: true,
      value: 5_000_000,
      error: null,
      calls: [{ id: expect.any(String), name: 'read_file', ok: true, durationMs: expect.any(Number) }],
    })
    expect(JSON.stringify(result).length).toBeLessThan(2_000)
  })

  it('keeps structuredContent under the observation cap when the value or the calls are large', async () => {
    const client = await connect()
    await client.listTools()
    const cap = rt.limits.maxObservationBytes
    const whole = (await client.callTool({
      name: 'run_code',
      arguments: { code: `return await tools.read_file({ path: 'big.txt' })` },
    })) as CallToolResult
    const s = whole.structuredContent as { value?: unknown; valueBytes?: number }
    expect(s.value).toBeUndefined()
    expect(s.valueBytes).toBe(5_000_002)
    expect(JSON.stringify(whole.structuredContent).length).toBeLessThanOrEqual(cap)
    expect(JSON.stringify(whole).length).toBeLessThan(3 * cap)

    const many = (await client.callTool({
      name: 'run_code',
      arguments: { code: `for (let i = 0; i < 900; i++) await tools.echo({ text: 'x'.repeat(50) + i }); return 'done'` },
    })) as CallToolResult
    const m = many.structuredContent as { value: string; calls: unknown[]; callsOmitted?: number }
    expect(m.value).toBe('done')
    expect(m.calls.length + (m.callsOmitted ?? 0)).toBe(900)
    expect(m.callsOmitted).toBeGreaterThan(0)
    expect(JSON.stringify(many.structuredContent).length).toBeLessThanOrEqual(cap)

    const failed = (await client.callTool({
      name: 'run_code',
      arguments: { code: `try { await tools.read_file({ path: 'nope.txt' }) } catch {}; throw new Error('x'.repeat(100000))` },
    })) as CallToolResult
    const f = failed.structuredContent as { ok: boolean; error: { kind: string; message: string }; calls: { code?: string }[] }
    expect(failed.isError).toBe(true)
    expect(f.ok).toBe(false)
    expect(f.error.kind).toBe('runtime')
    expect(f.error.message.length).toBeLessThan(5_000)
    expect(f.calls[0]!.code).toBe('ENOENT')
  })

  it('honours logging/setLevel per session; progress is not filtered', async () => {
    const [quiet, loud] = await Promise.all([connect(), connect()])
    const heard = new Map<Client, string[]>([
      [quiet, []],
      [loud, []],
    ])
    for (const [c, list] of heard)
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void list.push(`${n.params.level}:${String(n.params.data)}`))
    await quiet.setLoggingLevel('warning')
    const program = `console.debug('d'); console.log('l'); console.info('i'); console.warn('w'); console.error('e'); return 1`
    const progress: string[] = []
    await Promise.all([
      quiet.callTool({ name: 'run_code', arguments: { code: program } }, undefined, {
        onprogress: (p) => void progress.push(String(p.message)),
      }),
      loud.callTool({ name: 'run_code', arguments: { code: program } }),
    ])
    expect(heard.get(quiet)).toEqual(['warning:w', 'error:e'])
    expect(heard.get(loud)).toEqual(['debug:d', 'info:l', 'info:i', 'warning:w', 'error:e'])
    expect(progress).toEqual(['d', 'l', 'i', 'w', 'e'])
    heard.get(quiet)!.length = 0
    await quiet.setLoggingLevel('error')
    await quiet.callTool({ name: 'run_code', arguments: { code: program } })
    expect(heard.get(quiet)).toEqual(['error:e'])
    await expect(quiet.setLoggingLevel('loud' as LoggingLevel)).rejects.toThrow()
  })

  it('sends every log and progress notification of a run before its result, on the wire', async () => {
    const session = await openSession(serving.url)
    const headers = { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
    for (let round = 0; round < 5; round++) {
      const code = `for (let i = 0; i < 40; i++) { console.log('line ' + i); if (i % 10 === 0) await tools.echo({ text: 'tick' }) } return 'end'`
      const res = await fetch(serving.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 100 + round,
          method: 'tools/call',
          params: { name: 'run_code', arguments: { code }, _meta: { progressToken: `p${round}` } },
        }),
      })
      const messages = sseMessages(await res.text())
      const last = messages.at(-1)!
      expect(last.id).toBe(100 + round)
      const before = messages.slice(0, -1)
      expect(before.filter((m) => m.method === 'notifications/message')).toHaveLength(40)
      expect(before.filter((m) => m.method === 'notifications/progress').map((m) => (m.params as { progress: number }).progress)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      )
      expect(before.every((m) => typeof m.method === 'string')).toBe(true)
    }
  })

  it('cancels a run whose client closes the response stream (raw fetch), answering every pending call', async () => {
    const session = await openSession(serving.url)
    const controller = new AbortController()
    const code = `/* raw-close */ ${WAITING}`
    const res = await fetch(serving.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run_code', arguments: { code } } }),
      signal: controller.signal,
    })
    const reader = res.body!.getReader()
    let seen = ''
    while (!seen.includes('waiting')) seen += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
    expectCancelled(await runEvents('raw-close'))
    // The session itself lives on.
    const again = await fetch(serving.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    })
    expect(again.status).toBe(200)
    await again.text()
  })

  it('cancels the run of an SDK client that closes mid-run', async () => {
    const client = await connect()
    const waiting = new Promise<void>((resolve) =>
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void (n.params.data === 'waiting' && resolve())),
    )
    const call = client.callTool({ name: 'run_code', arguments: { code: `/* sdk-close */ ${WAITING}` } }).catch((e: Error) => e)
    await waiting
    await client.close()
    expect(await call).toBeInstanceOf(Error)
    expectCancelled(await runEvents('sdk-close'))
  })

  it('sends tools/list_changed whenever the registry changes, and on notifyToolsChanged()', async () => {
    const client = await connect()
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
    await client.listTools() // the standalone GET stream is open by now
    await new Promise((r) => setTimeout(r, 200))
    rt.tools.register([{ name: 'late_tool', description: 'Registered while serving.', parameters: z.object({}), execute: () => 'late' }])
    await expect.poll(() => changes, { timeout: 10_000 }).toBe(1)
    const listed = await client.listTools()
    expect(listed.tools.map((t) => t.name)).toContain('late_tool')
    expect(listed.tools[0]!.description).toContain('late_tool(')
    rt.tools.unregister(['late_tool'])
    await expect.poll(() => changes, { timeout: 10_000 }).toBe(2)
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('late_tool')
    exported.notifyToolsChanged()
    await expect.poll(() => changes, { timeout: 10_000 }).toBe(3)
  })

  it('exposes tools with outputSchema, structuredContent, compact text and the workspace annotations', async () => {
    const client = await connect()
    const { tools: listed } = await client.listTools()
    const byName = Object.fromEntries(listed.map((t) => [t.name, t]))
    expect(byName.read_file!.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    })
    expect(byName.list_dir!.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.write_file!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true })
    expect(byName.edit_file!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false })
    expect(byName.remove!.annotations).toMatchObject({ destructiveHint: true })
    expect(byName.mkdir!.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true })
    expect(byName.bash!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false })
    expect(byName.read_file!.outputSchema).toBeUndefined() // its text is the value
    expect(byName.stat!.outputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } })
    expect(byName.list_dir!.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'array' } }, required: ['result'] })
    expect(byName.increment!.outputSchema).toMatchObject({ properties: { result: { type: 'number' } } })

    const listing = (await client.callTool({ name: 'list_dir', arguments: { path: '.' } })) as CallToolResult
    expect(listing.structuredContent).toEqual({ result: [{ name: 'big.txt', type: 'file', size: 5_000_000 }] })
    expect(listing.content).toEqual([{ type: 'text', text: '[{"name":"big.txt","type":"file","size":5000000}]' }])
    const stat = (await client.callTool({ name: 'stat', arguments: { path: 'big.txt' } })) as CallToolResult
    expect(stat.structuredContent).toMatchObject({ path: 'big.txt', type: 'file', size: 5_000_000 })
    const n = (await client.callTool({ name: 'increment', arguments: { by: 0 } })) as CallToolResult
    expect(n.structuredContent).toEqual({ result: expect.any(Number) })
    const denied = (await client.callTool({ name: 'read_file', arguments: { path: '../../etc/passwd' } })) as CallToolResult
    expect(denied.isError).toBe(true)
    expect(denied.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Error \(EACCES\)/) }])
    expect(denied.structuredContent).toBeUndefined()
  })
})

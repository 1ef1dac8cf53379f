/**
 * `codeact mcp` over stdio, driven by the official SDK client: list tools, run programs that call workspace
 * and `--tools` tools, stream console output, call an exposed tool, and cancel a long run.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventData, RunEvent } from '../../vocabulary/types.js'
import { REPO_ROOT, tempDir } from './helpers.js'

const CLI = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'cli-entry.mjs')
const TOOLS = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'tools.ts')

describe('export over stdio: codeact mcp', () => {
  let client: Client
  let dir: string
  let logFile: string
  const logs: string[] = []

  beforeAll(async () => {
    dir = tempDir('codeact-mcp-export-')
    logFile = join(tempDir('codeact-mcp-log-'), 'events.jsonl')
    writeFileSync(join(dir, 'hello.txt'), 'hello from the workspace\n')
    client = new Client({ name: 'export-test', version: '1.0.0' })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--tools', TOOLS, '--workspace', dir, '--expose-tools', '--log', logFile],
      cwd: REPO_ROOT,
      stderr: 'pipe',
    })
    await client.connect(transport)
  })
  afterAll(async () => {
    await client?.close()
  })

  it('lists run_code with the SDK in its description, and the exposed tools', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names[0]).toBe('run_code')
    expect(names).toEqual(expect.arrayContaining(['increment', 'sleep', 'echo', 'read_file']))
    const runCode = tools[0]!
    expect(runCode.description).toContain('increment(args: { /** @integer */ by: number }): Promise<number>')
    expect(runCode.description).toContain('read_file(')
    expect(runCode.inputSchema.required).toEqual(['code'])
  })

  it('runs a program against workspace and --tools tools, streaming its console output', async () => {
    const result = (await client.callTool({
      name: 'run_code',
      arguments: {
        code: `
          const text = await tools.read_file({ path: 'hello.txt' })
          console.log('read it')
          console.warn('careful')
          const n = await tools.increment({ by: 2 })
          return { text, n }
        `,
      },
    })) as CallToolResult
    expect(result.isError).toBeFalsy()
    const structured = result.structuredContent as {
      ok: boolean
      value: { text: unknown; n: number }
      calls: { name: string }[]
      events?: unknown
    }
    expect(structured.ok).toBe(true)
    expect(JSON.stringify(structured.value.text)).toContain('hello from the workspace')
    expect(structured.value.n).toBe(2)
    expect(structured.calls.map((c) => c.name)).toEqual(['read_file', 'increment'])
    expect(structured.events).toBeUndefined()
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/"n": ?2/) }])
    expect(logs).toEqual(expect.arrayContaining(['read it', 'careful']))
  })

  it('answers a failed program with isError and the observation', async () => {
    const result = (await client.callTool({ name: 'run_code', arguments: { code: `throw new Error('nope')` } })) as CallToolResult
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('nope') }])
    expect((result.structuredContent as { error: { kind: string } }).error.kind).toBe('runtime')
  })

  it('calls an exposed tool directly, through the runtime', async () => {
    const ok = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult
    expect(ok).toMatchObject({ content: [{ type: 'text', text: 'hi' }] })
    const bad = (await client.callTool({ name: 'echo', arguments: { text: 3 } })) as CallToolResult
    expect(bad.isError).toBe(true)
    expect(bad.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Error \(EINVAL\): echo: invalid arguments/) }])
  })

  it('aborts the run when the client cancels, answering every pending call', async () => {
    const controller = new AbortController()
    const started = new Promise<void>((resolve) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(String(n.params.data))
        if (n.params.data === 'waiting') resolve()
      })
    })
    const call = client.callTool(
      // 'waiting' is printed once both calls are issued, so the cancel cannot arrive before they exist.
      {
        name: 'run_code',
        arguments: {
          code: `const both = Promise.all([tools.sleep({ ms: 60000 }), tools.sleep({ ms: 60000 })]); console.log('waiting'); await both; return 'finished'`,
        },
      },
      undefined,
      { signal: controller.signal },
    )
    await started
    controller.abort('user pressed stop')
    await expect(call).rejects.toThrow()
    // The server is still serving; the log it wrote shows the run ended aborted with both calls answered.
    const after = (await client.callTool({
      name: 'run_code',
      arguments: { code: `return await tools.increment({ by: 0 })` },
    })) as CallToolResult
    expect(after.isError).toBeFalsy()
    const events = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RunEvent)
    const start = events.find((e) => e.type === 'run/start' && (e.data as EventData['run/start']).code.includes("'waiting'"))!
    const runId = (start.data as EventData['run/start']).runId
    const calls = events.filter((e) => e.type === 'tool/call' && (e.data as EventData['tool/call']).parentId === runId)
    const results = events.filter(
      (e) =>
        e.type === 'tool/result' && calls.some((c) => (c.data as EventData['tool/call']).id === (e.data as EventData['tool/result']).id),
    )
    expect(calls).toHaveLength(2)
    expect(results.map((r) => (r.data as EventData['tool/result']).result)).toEqual([
      { ok: false, error: { code: 'ECANCELED', message: expect.any(String) } },
      { ok: false, error: { code: 'ECANCELED', message: expect.any(String) } },
    ])
    const end = events.find((e) => e.type === 'run/end' && (e.data as EventData['run/end']).runId === runId)!
    expect((end.data as EventData['run/end']).error?.kind).toBe('aborted')
  })
})

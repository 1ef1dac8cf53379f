/**
 * MCP to the spec over stdio, against `bin/codeact.mjs mcp` as a host starts it: setLevel, notifications
 * before the result (read off the raw stdout), list_changed when an imported server's tools change (no
 * hand wiring), and imported tools' annotations passed through with --expose-tools.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FILESYSTEM_SERVER, REPO_ROOT, TEST_SERVER, tempDir } from './helpers.js'
import { BIN } from './http-helpers.js'

describe('MCP to the spec over stdio: codeact mcp', () => {
  let client: Client
  let dir: string
  const logs: string[] = []
  let changes = 0

  beforeAll(async () => {
    dir = tempDir('codeact-mcp-spec-stdio-')
    client = new Client({ name: 'spec-stdio', version: '1.0.0' })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(`${n.params.level}:${String(n.params.data)}`))
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          BIN,
          'mcp',
          '--typecheck=off',
          '--expose-tools',
          '--mcp',
          `t=${process.execPath} ${TEST_SERVER}`,
          '--mcp',
          `fs=${process.execPath} ${FILESYSTEM_SERVER} ${dir}`,
        ],
        cwd: REPO_ROOT,
        stderr: 'pipe',
      }),
    )
  })
  afterAll(async () => {
    await client?.close()
  })

  it('honours logging/setLevel', async () => {
    const program = `console.debug('dbg-line'); console.log('l'); console.warn('w'); console.error('e'); return 1`
    await client.callTool({ name: 'run_code', arguments: { code: program } })
    expect(logs).toEqual(['debug:dbg-line', 'info:l', 'warning:w', 'error:e'])
    logs.length = 0
    await client.setLoggingLevel('error')
    const result = (await client.callTool({ name: 'run_code', arguments: { code: program } })) as CallToolResult
    expect(logs).toEqual(['error:e'])
    // The observation still has every line: the level governs notifications only.
    expect(JSON.stringify(result.content)).toContain('dbg-line')
    await client.setLoggingLevel('debug')
  })

  it('passes imported tools’ annotations through', async () => {
    const { tools } = await client.listTools()
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(byName.fs__read_text_file!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(byName.fs__write_file!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.t__stats!.outputSchema).toMatchObject({ type: 'object', properties: { n: { type: 'number' } } })
    const stats = (await client.callTool({ name: 't__stats', arguments: { n: 3 } })) as CallToolResult
    expect(stats.structuredContent).toEqual({ n: 3, square: 9 })
    expect(stats.content).toEqual([{ type: 'text', text: '{"n":3,"square":9}' }])
  })

  it('sends tools/list_changed when an imported server’s tools change', async () => {
    const before = changes
    await client.callTool({ name: 'run_code', arguments: { code: `return await tools.t__add_tool({ name: 'fresh' })` } })
    await expect.poll(() => changes, { timeout: 15_000 }).toBeGreaterThan(before)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('t__fresh')
    expect(tools[0]!.description).toContain('t__fresh(')
  })
})

describe('stdio wire order', () => {
  it('writes every notification of a run before its result', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--typecheck=off'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'ignore'] })
    const lines = createInterface({ input: child.stdout! })
    const seen: Record<string, unknown>[] = []
    const waiters: [(m: Record<string, unknown>) => boolean, () => void][] = []
    lines.on('line', (l) => {
      const m = JSON.parse(l) as Record<string, unknown>
      seen.push(m)
      for (const [match, done] of waiters) if (match(m)) done()
    })
    const answer = (id: number) => new Promise<void>((resolve) => waiters.push([(m) => m.id === id, resolve]))
    const send = (m: object) => child.stdin!.write(JSON.stringify(m) + '\n')
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      })
      await answer(1)
      send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      for (let id = 2; id < 7; id++) {
        const code = `for (let i = 0; i < 40; i++) console.log('line ' + i); return ${id}`
        send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_code', arguments: { code }, _meta: { progressToken: id } } })
        await answer(id)
        const mine = seen.filter((m) => m.id === id || (m.params as { progressToken?: unknown } | undefined)?.progressToken === id)
        expect(mine.at(-1)!.id).toBe(id)
        expect(mine.filter((m) => m.method === 'notifications/progress')).toHaveLength(40)
        const at = seen.findIndex((m) => m.id === id)
        expect(seen.slice(0, at).filter((m) => m.method === 'notifications/message')).toHaveLength(40 * (id - 1))
      }
      // 5 runs x 40 log lines, all before the answer of their run (each run waited for its answer).
      expect(seen.filter((m) => m.method === 'notifications/message')).toHaveLength(200)
    } finally {
      child.stdin!.end()
      child.kill()
    }
  })
})

/** `codeact mcp` as a process: importing servers with --mcp while exporting, and --http on 127.0.0.1. */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { MEMORY_SERVER, REPO_ROOT, tempDir } from './helpers.js'
import { printedToken } from './http-helpers.js'

const CLI = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'cli-entry.mjs')

describe('codeact mcp (process)', () => {
  it('imports servers from --mcp and --mcp-config, reports the one that fails, and serves their tools to programs', async () => {
    const dir = tempDir('codeact-mcp-cli-')
    const config = join(dir, 'claude_desktop_config.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { ghost: { command: 'codeact-missing-binary', args: ['x'] } } }))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--typecheck=off', '--mcp-config', config, '--mcp', `mem=${process.execPath} ${MEMORY_SERVER}`],
      // Reaches the memory server only because a --mcp server inherits codeact's environment.
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (c: Buffer) => void (stderr += c.toString()))
    const client = new Client({ name: 'cli-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools[0]!.description).toContain('mem__create_entities(')
      const result = (await client.callTool({
        name: 'run_code',
        arguments: {
          code: `await tools.mem__create_entities({ entities: [{ name: 'x', entityType: 'y', observations: [] }] }); return (await tools.mem__read_graph({})).entities.length`,
        },
      })) as CallToolResult
      expect((result.structuredContent as { value: unknown }).value).toBe(1)
      expect(readFileSync(join(dir, 'memory.jsonl'), 'utf8')).toContain('"name":"x"')
      expect(stderr).toContain('codeact: MCP_UNAVAILABLE: MCP server "ghost" is unavailable (command: codeact-missing-binary x)')
    } finally {
      await client.close()
    }
  })

  it('serves streamable HTTP on 127.0.0.1 with --http, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, '--http', '0', '--typecheck=off'], { stdio: ['ignore', 'ignore', 'pipe'] })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    let text = ''
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        text += c.toString()
        const m = /serving streamable HTTP at ([^\s"]+)/.exec(text)
        if (m) resolve(m[1]!)
      })
      child.on('exit', () => reject(new Error(`exited early: ${text}`)))
    })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    // No token given: one was generated and printed before the URL.
    const token = printedToken(text)
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const client = new Client({ name: 'cli-http', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    )
    const result = (await client.callTool({ name: 'run_code', arguments: { code: `console.log('hi'); return 1 + 1` } })) as CallToolResult
    expect((result.structuredContent as { value: unknown }).value).toBe(2)
    await client.close()
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('exits 2 with usage on a bad --mcp flag', async () => {
    const child = spawn(process.execPath, [CLI, '--mcp', 'nameonly'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let text = ''
    child.stderr.on('data', (c: Buffer) => void (text += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(text).toContain(`--mcp needs NAME='COMMAND ARGS…' or NAME=URL`)
  })
})

/**
 * The MCP server keeps state per MCP session, driven by the official SDK client: two HTTP clients bind the
 * same names and never see each other's; a stdio client keeps its bindings between run_code calls, and
 * `--stateless` turns that off. run_code's description tells the model that state persists.
 */
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp } from '../../mcp/serve.js'
import { REPO_ROOT } from '../mcp/helpers.js'
import { crmTools, runtimeWith } from './core-support.js'

const clients: Client[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
})

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text
const run = (c: Client, code: string) => c.callTool({ name: 'run_code', arguments: { code } })

describe('the MCP server keeps state per MCP session', () => {
  it('over HTTP: two clients, the same names, isolated; state persists within each', async () => {
    const rt = await runtimeWith({ tools: crmTools().tools })
    const serving = await serveHttp(createMcpExport(rt), { port: 0, token: false })
    try {
      const connect = async (name: string) => {
        const c = new Client({ name, version: '1.0.0' })
        await c.connect(new StreamableHTTPClientTransport(new URL(serving.url)))
        clients.push(c)
        return c
      }
      const [a, b] = await Promise.all([connect('a'), connect('b')])
      const { tools } = await a.listTools()
      expect(tools[0]?.description).toMatch(/State persists between run_code calls/)
      await Promise.all([
        run(a, "const team = 'alpha'\nconst seen: string[] = []"),
        run(b, "const team = 'beta'\nconst seen: string[] = []"),
      ])
      const [ra, rb] = await Promise.all([
        run(a, "const c = await tools.get_customer({ id: 'c1' })\nseen.push(c.name)\nreturn [team, seen]"),
        run(b, "const c = await tools.get_customer({ id: 'c2' })\nseen.push(c.name)\nreturn [team, seen]"),
      ])
      expect(text(ra)).toContain('["alpha",["Acme"]]')
      expect(text(rb)).toContain('["beta",["Globex"]]')
      const again = await run(a, 'seen.push(team)\nreturn seen.length')
      expect(text(again)).toContain('Return value:\n2')
    } finally {
      await serving.close()
    }
  })

  it('over stdio (codeact mcp): bindings persist between calls; --stateless turns it off', async () => {
    const connect = async (extra: string[]) => {
      const c = new Client({ name: 'stdio', version: '1.0.0' })
      await c.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(REPO_ROOT, 'bin', 'codeact.mjs'), 'mcp', ...extra],
          cwd: REPO_ROOT,
          stderr: 'pipe',
        }),
      )
      clients.push(c)
      return c
    }
    const stateful = await connect(['--max-realms', '4', '--realm-idle', '5m'])
    await run(
      stateful,
      'const prices = new Map([["a", 3], ["b", 4]])\nfunction total() { let t = 0; for (const v of prices.values()) t += v; return t }',
    )
    expect(text(await run(stateful, 'prices.set("c", 5)\ntotal()'))).toContain('Return value:\n12')

    const stateless = await connect(['--stateless'])
    const { tools } = await stateless.listTools()
    expect(tools[0]?.description).not.toMatch(/State persists/)
    await run(stateless, 'const prices = 1')
    expect(text(await run(stateless, "return 'prices' in globalThis"))).toContain('Return value:\nfalse')
  })
})

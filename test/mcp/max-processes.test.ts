/**
 * `codeact mcp --max-processes N`: how many isolate processes serve the server's sessions at once (each
 * session is its own caller and never shares one). Driven over HTTP with the real MCP SDK client, counting
 * the server's isolate children in /proc.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpCommand } from '../../cli/mcp.js'
import { type CliServer, startHttpCli } from './http-helpers.js'

function isolateChildrenOf(pid: number): number {
  let n = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('isolate/child.js')) n++
    } catch {
      // the process ended while we looked
    }
  }
  return n
}

const servers: CliServer[] = []
const clients: Client[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
  for (const s of servers.splice(0)) await s.stop()
})

async function session(server: CliServer): Promise<Client> {
  const client = new Client({ name: 'max-processes-test', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }))
  clients.push(client)
  return client
}

async function run(client: Client, code: string): Promise<unknown> {
  const result = await client.callTool({ name: 'run_code', arguments: { code } })
  expect(result.isError).toBeFalsy()
  return (result.structuredContent as { value?: unknown }).value
}

describe('codeact mcp --max-processes', () => {
  it('caps the processes serving sessions: three sessions over one process (plus the spare)', async () => {
    const server = await startHttpCli(['--max-processes', '1', '--typecheck=off'])
    servers.push(server)
    const [a, b, c] = [await session(server), await session(server), await session(server)]
    for (const round of [1, 2]) {
      for (const [name, client] of [
        ['a', a],
        ['b', b],
        ['c', c],
      ] as const) {
        expect(await run(client, `return "${name}${round}"`)).toBe(`${name}${round}`)
        // One serving the session that just ran, one warm spare; a retired one may still be ending.
        const end = Date.now() + 10_000
        while (isolateChildrenOf(server.child.pid!) > 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
        expect(isolateChildrenOf(server.child.pid!)).toBeLessThanOrEqual(2)
      }
    }
  })

  it('refuses a count that is not one, or a Docker sandbox', async () => {
    for (const [args, message] of [
      [['--max-processes', '0'], /--max-processes needs a whole number from 1 to 1024, got "0"/],
      [['--max-processes', 'many'], /--max-processes needs a whole number/],
      [['--max-processes', '4', '--sandbox', 'docker'], /--max-processes applies to the isolate sandbox/],
    ] as const) {
      let text = ''
      const stderr = new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) })
      expect(await mcpCommand([...args], { stderr })).toBe(2)
      expect(text).toMatch(message)
    }
  })
})

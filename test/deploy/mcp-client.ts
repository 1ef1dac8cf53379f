/**
 * An MCP client of the official SDK for the deploy tests, through a load balancer: the bearer token on
 * every request, and the replica that served each request (HAProxy's X-Served-By) recorded.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

export interface BalancedClient {
  /** run_code's answer: the value, or the error text of a failed run. */
  run(code: string): Promise<{ ok: boolean; value: unknown; text: string }>
  /** The replicas that answered this client's requests, in order. */
  servedBy: string[]
  close(): Promise<void>
}

export async function connect(url: string, token: string): Promise<BalancedClient> {
  const servedBy: string[] = []
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init)
    const replica = res.headers.get('x-served-by')
    if (replica) servedBy.push(replica)
    return res
  }
  const client = new Client({ name: 'deploy-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: recordingFetch,
    }),
  )
  return {
    servedBy,
    async run(code) {
      // A request whose replica was killed may never be answered: give up on it well before the SDK's minute.
      const result = (await client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 20_000 })) as CallToolResult
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
      const value = (result.structuredContent as { value?: unknown } | undefined)?.value
      return { ok: result.isError !== true, value, text }
    },
    close: () => client.close(),
  }
}

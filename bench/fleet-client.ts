/**
 * An MCP client of the official SDK for the deploy tests and the replica bench, through a load balancer:
 * the bearer token on every request, and the replica that served each request (HAProxy's X-Served-By)
 * recorded; and the sessions both drive (turn t of session s, its expected state, a bounded pool).
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

/** Turn t of session s: the tool records `s:t`, the state is every turn's key so far. */
export function turnCode(s: number, t: number): string {
  const call = `await tools.count({ key: '${s}:${t}' })`
  return t === 1 ? `let keys = [${call}]; keys` : `keys.push(${call}); keys`
}

/** What turn t of session s must answer: every key so far. */
export const keysUpTo = (s: number, t: number) => Array.from({ length: t }, (_, i) => `${s}:${i + 1}`)

/** Runs `work` over `items`, `width` at a time. */
export async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

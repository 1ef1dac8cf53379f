/**
 * 5,000 `initialize` requests against `codeact mcp --http` (the real CLI process) must not grow its memory
 * without bound: sessions are capped, so old idle ones are closed and collected. Before the cap this
 * flood added about 165 MB that was never freed.
 */
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { MCP_HEADERS, initializeBody, startHttpCli, type CliServer } from './http-helpers.js'

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m![1]) / 1024
}

async function flood(url: string, count: number, concurrency = 8): Promise<string[]> {
  const ids: string[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++
        const res = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body: initializeBody() })
        await res.text()
        expect(res.status).toBe(200)
        ids.push(res.headers.get('mcp-session-id')!)
      }
    }),
  )
  return ids
}

describe.skipIf(process.platform !== 'linux')('MCP over HTTP: an initialize flood', () => {
  let server: CliServer | undefined
  afterAll(async () => {
    await server?.stop()
  })

  it('keeps memory bounded over 5,000 initialize requests and still serves', { timeout: 180_000 }, async () => {
    server = await startHttpCli(['--typecheck=off', '--max-sessions', '50'])
    const pid = server.child.pid!
    const first = await flood(server.url, 300)
    const before = rssMb(pid)
    await flood(server.url, 5_000)
    const after = rssMb(pid)
    console.log(`RSS before ${before.toFixed(1)} MB, after 5,000 more initialize requests ${after.toFixed(1)} MB`)
    expect(after - before).toBeLessThan(60)
    // The first sessions were closed to make room; a new client still gets in and is answered.
    const stale = await fetch(server.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': first[0]!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    })
    expect(stale.status).toBe(404)
    await stale.text()
    const fresh = await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: initializeBody() })
    expect(fresh.status).toBe(200)
    await fresh.text()
  })
})

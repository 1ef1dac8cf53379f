/**
 * 5,000 `initialize` requests must not grow the server's memory without bound: sessions are capped, so
 * old idle ones are closed and collected. Before the cap this flood kept about 150 MB that was never freed.
 * Measured in this process after a full GC (heap used, and RSS), so V8's lazy collection cannot blur it.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp, type HttpServing } from '../../mcp/serve.js'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { MCP_HEADERS, initializeBody } from './http-helpers.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function settledMemory(): { heapMb: number; rssMb: number } {
  for (let i = 0; i < 3; i++) gc()
  const m = process.memoryUsage()
  return { heapMb: m.heapUsed / 2 ** 20, rssMb: m.rss / 2 ** 20 }
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

describe('MCP over HTTP: an initialize flood', () => {
  let rt: Runtime
  let serving: HttpServing
  beforeAll(async () => {
    rt = await createRuntime({ typecheck: 'off' })
    serving = await serveHttp(createMcpExport(rt), { port: 0, token: false, maxSessions: 50 })
  })
  afterAll(async () => {
    await serving?.close()
    await rt?.close()
  })

  it('keeps memory bounded over 5,000 initialize requests and still serves', { timeout: 180_000 }, async () => {
    const first = await flood(serving.url, 300)
    await new Promise((r) => setTimeout(r, 200))
    const before = settledMemory()
    await flood(serving.url, 5_000)
    await new Promise((r) => setTimeout(r, 200))
    const after = settledMemory()
    console.log(
      `after 5,000 initialize requests: heap ${before.heapMb.toFixed(1)} -> ${after.heapMb.toFixed(1)} MB, RSS ${before.rssMb.toFixed(1)} -> ${after.rssMb.toFixed(1)} MB`,
    )
    expect(serving.sessions()).toBeLessThanOrEqual(50)
    expect(after.heapMb - before.heapMb).toBeLessThan(25)
    expect(after.rssMb - before.rssMb).toBeLessThan(100)
    // The first sessions were closed to make room; a new client still gets in and is answered.
    const stale = await fetch(serving.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': first[0]!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    })
    expect(stale.status).toBe(404)
    await stale.text()
    const fresh = await fetch(serving.url, { method: 'POST', headers: MCP_HEADERS, body: initializeBody() })
    expect(fresh.status).toBe(200)
    await fresh.text()
  })
})

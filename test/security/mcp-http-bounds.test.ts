/**
 * `codeact mcp --http` attacked as a local user or a web page would: calls without a token, many slow
 * bodies at once, an initialize flood that never closes a session, and a client whose session the server
 * closed. The server runs as a user starts it (the CLI, a child process), and its memory is its VmRSS.
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type CliServer, MCP_HEADERS, initializeBody, openSession, startHttpCli } from '../mcp/http-helpers.js'

const servers: CliServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop()
})

async function start(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliServer> {
  const server = await startHttpCli(['--typecheck=off', ...args], env)
  servers.push(server)
  return server
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const post = (url: string, headers: Record<string, string>, body = initializeBody()) =>
  fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body })

describe('codeact mcp --http: a token by default', () => {
  it('generates and prints a token when none is given, and refuses a request without it', async () => {
    const server = await start([])
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(server.stderr()).toContain('set your own with --token or CODEACT_MCP_TOKEN')
    // A local process, and a page on http://localhost:* (its Origin is loopback, so only the token stops it).
    const tries: Record<string, string>[] = [
      {},
      { origin: 'http://localhost:5173' },
      { authorization: 'Bearer guessed-token-000000000000' },
    ]
    for (const headers of tries) {
      const res = await post(server.url, headers)
      expect(res.status).toBe(401)
      await res.text()
    }
    const ok = await post(server.url, server.headers)
    expect(ok.status).toBe(200)
    await ok.text()
  })

  it('two starts generate two tokens; a token given by flag or environment is used and not printed', async () => {
    const [a, b] = [await start([]), await start([])]
    expect(a.token).not.toBe(b.token)
    const given = 'a-token-of-my-own-0123456789'
    const c = await start([], { ...process.env, CODEACT_MCP_TOKEN: given })
    expect(c.stderr()).not.toContain(given)
    expect((await post(c.url, {})).status).toBe(401)
    const ok = await post(c.url, { authorization: `Bearer ${given}` })
    expect(ok.status).toBe(200)
    await ok.text()
  })

  it('--no-token serves without one, and warns', async () => {
    const server = await start(['--no-token'])
    expect(server.token).toBeUndefined()
    expect(server.stderr()).toMatch(/warning: --no-token: any local user and any web page/)
    const res = await post(server.url, {})
    expect(res.status).toBe(200)
    await res.text()
  })
})

/**
 * A request that announces a 4 MiB body, sends all of it but its last byte, and waits: the server holds what
 * came. Resolves with the status the server answered (0 if none yet) once `sent` is done.
 */
function slowBody(
  url: URL,
  headers: Record<string, string>,
  size: number,
): { answer: () => number; close: () => void; sent: Promise<void> } {
  const socket = connect(Number(url.port), url.hostname)
  let status = 0
  let text = ''
  socket.on('data', (c: Buffer) => {
    text += c.toString('latin1')
    status ||= Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)
  })
  socket.on('error', () => {})
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${size}`,
  ].join('\r\n')
  const sent = new Promise<void>((resolve) => {
    socket.write(`${head}\r\n\r\n`)
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    let left = size - 1
    const pump = (): void => {
      while (left > 0 && !socket.destroyed) {
        const n = Math.min(left, chunk.length)
        left -= n
        if (!socket.write(chunk.subarray(0, n))) return void socket.once('drain', pump)
      }
      resolve()
    }
    pump()
    socket.once('close', () => resolve())
  })
  return { answer: () => status, close: () => socket.destroy(), sent }
}

describe('codeact mcp --http: bodies in flight', () => {
  it('200 slow 4 MiB bodies: past --max-bodies-in-flight each is answered 503 with Retry-After, and memory stays bounded', {
    timeout: 120_000,
  }, async () => {
    const server = await start(['--max-bodies-in-flight', String(16 * 1024 * 1024)])
    const url = new URL(server.url)
    await sleep(500)
    const before = rssMb(server.child.pid!)
    const bodies = Array.from({ length: 200 }, () => slowBody(url, server.headers, 4 * 1024 * 1024 - 64))
    await Promise.all(bodies.map((b) => b.sent))
    // The refusals go out as the server reads each request's head; the old server answered none (it held them all).
    await expect
      .poll(() => bodies.filter((b) => b.answer() === 503).length, { timeout: 20_000, interval: 250 })
      .toBeGreaterThanOrEqual(190)
      .catch(() => {})
    const during = rssMb(server.child.pid!)
    const answers = bodies.map((b) => b.answer())
    for (const b of bodies) b.close()
    console.log(
      `200 slow 4 MiB bodies: server RSS ${before.toFixed(0)} -> ${during.toFixed(0)} MB; ${answers.filter((s) => s === 503).length} answered 503`,
    )
    // 16 MiB of bodies fit: four of (just under) 4 MiB; every other one is refused before its body is read. A
    // refusal is lost when the server closes a connection the client is still writing to (the client sees a
    // reset, not the 503), and how many depends on the kernel's timing and the Node line (94–102 of 200 on
    // Node 22 here, the old server 0): the memory bound below is the promise.
    expect(answers.filter((s) => s === 503).length).toBeGreaterThanOrEqual(50)
    expect(answers.every((s) => s === 0 || s === 503)).toBe(true)
    expect(during - before).toBeLessThan(80)
    // Refused, not broken: the next request (bodies gone) is served, and a refusal says why and when to retry.
    await sleep(300)
    const ok = await post(server.url, server.headers)
    expect(ok.status).toBe(200)
    await ok.text()
  })

  it('a refusal says what was full, the flag that raises it, and when to try again', async () => {
    const server = await start(['--max-bodies-in-flight', '4096'])
    const held = slowBody(new URL(server.url), server.headers, 4000)
    await held.sent
    const res = await post(server.url, server.headers, initializeBody().padEnd(1000, ' '))
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('2')
    expect(await res.text()).toContain('raise it with --max-bodies-in-flight')
    held.close()
  })
})

describe('codeact mcp --http: sessions the server closed', () => {
  it('an evicted client hears on its next request that it was evicted, why, and the flag', async () => {
    const server = await start(['--max-sessions', '2'])
    const first = await openSession(server.url, server.headers)
    await openSession(server.url, server.headers)
    await openSession(server.url, server.headers)
    const res = await post(
      server.url,
      { ...server.headers, 'mcp-session-id': first, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(res.status).toBe(404)
    const message = ((await res.json()) as { error: { message: string } }).error.message
    expect(message).toContain(`session ${first} was closed by the server to make room for a new one`)
    expect(message).toContain('--max-sessions')
    expect(message).toContain('send initialize')
    // A GET (the client's event stream) hears the same.
    const stream = await fetch(server.url, { headers: { ...server.headers, accept: 'text/event-stream', 'mcp-session-id': first } })
    expect(stream.status).toBe(404)
    expect(await stream.text()).toContain('--max-sessions')
  })

  it('an idle-closed client hears that it was idle too long, and the flag', async () => {
    const server = await start(['--session-idle', '1000'])
    const id = await openSession(server.url, server.headers)
    await sleep(2500)
    const res = await post(
      server.url,
      { ...server.headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(res.status).toBe(404)
    expect(await res.text()).toMatch(/closed by the server after 1000 ms without a request \(--session-idle\)/)
  })

  // From Node 22 on, V8 keeps the pages a collection emptied committed (a forced collection gives back nothing
  // within seconds), so the server's RSS at rest cannot show what the sessions freed there: measured on Node 20.
  const major = Number(process.versions.node.split('.')[0])
  it.skipIf(major >= 22)(
    '5,000 sessions opened and never closed: the server at rest gives the memory back',
    { timeout: 300_000 },
    async () => {
      const server = await start([])
      const flood = async (count: number): Promise<void> => {
        let next = 0
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next++ < count) await openSession(server.url, server.headers)
          }),
        )
      }
      await flood(200)
      // At rest: past the host's quiet period and its two collections (runtime/host-quiet.ts).
      await sleep(12_000)
      const before = rssMb(server.child.pid!)
      await flood(5000)
      await sleep(12_000)
      const after = rssMb(server.child.pid!)
      console.log(`5,000 sessions opened, never closed: server RSS at rest ${before.toFixed(0)} -> ${after.toFixed(0)} MB`)
      expect(after - before).toBeLessThan(25)
    },
  )
})

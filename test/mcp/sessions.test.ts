/**
 * The MCP server keeps one codeact session per MCP session (issue 15), driven by the official SDK client:
 * over stdio (`codeact mcp`, one client per server process) and streamable HTTP (many clients, one server).
 * State persists across tools/call of one client; two clients using the same names never see each other's.
 */
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp, type HttpServing } from '../../mcp/serve.js'
import tools from './fixtures/tools.js'
import { REPO_ROOT } from './helpers.js'

const CLI = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'cli-entry.mjs')
const TOOLS = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'tools.ts')

interface Answer {
  ok: boolean
  value: unknown
  text: string
}

async function run(client: Client, code: string): Promise<Answer> {
  const r = (await client.callTool({ name: 'run_code', arguments: { code } })) as CallToolResult
  const structured = r.structuredContent as { ok: boolean; value: unknown; observation?: string } | undefined
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
  return { ok: structured?.ok ?? !r.isError, value: structured?.value, text }
}

const clients: Client[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
})

describe('over stdio: codeact mcp', () => {
  async function stdioClient(name: string): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, '--tools', TOOLS], cwd: REPO_ROOT, stderr: 'pipe' }),
    )
    clients.push(client)
    return client
  }

  let a: Client
  beforeAll(async () => {
    a = await stdioClient('stdio-a')
  })

  it("run_code's description tells the model that state persists between calls", async () => {
    const { tools: listed } = await a.listTools()
    const runCode = listed.find((t) => t.name === 'run_code')!
    expect(runCode.description).toMatch(/persist|kept between|next call|earlier calls/i)
  })

  it('state persists across tools/call of one client: data, a helper and a class instance', async () => {
    const first = await run(
      a,
      `const greeting = String(await tools.echo({ text: 'hello' }))
class Tally { n = 0; bump() { return ++this.n } }
const tally = new Tally()
function loud(s: string) { return s.toUpperCase() }
tally.bump()`,
    )
    expect(first, first.text).toMatchObject({ ok: true, value: 1 })
    const second = await run(a, 'tally.bump()\nreturn { shout: loud(greeting), n: tally.n }')
    expect(second, second.text).toMatchObject({ ok: true, value: { shout: 'HELLO', n: 2 } })
  })

  it('a turn that misuses an earlier binding is stopped with a message naming its type', async () => {
    await run(a, "const profile = { name: 'Ana', langs: ['ts'] }")
    const bad = await run(a, 'return profile.languages.length')
    expect(bad.ok).toBe(false)
    expect(bad.text).toMatch(/Property 'languages' does not exist/)
    expect((await run(a, 'profile.langs.length')).value).toBe(1)
  })

  it('a second client (its own server process) under the same names sees none of the first one', async () => {
    const b = await stdioClient('stdio-b')
    const probe = await run(b, 'return typeof (globalThis as any).tally')
    expect(probe.value).toBe('undefined')
    expect((await run(b, "const greeting = 'mine'\ngreeting")).value).toBe('mine')
    expect((await run(a, 'greeting')).value).toBe('hello')
  })
})

describe('over streamable HTTP: one server, many clients', () => {
  let rt: Runtime
  let serving: HttpServing

  async function httpClient(name: string): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)))
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    rt = await createRuntime({ tools })
    serving = await serveHttp(createMcpExport(rt), { port: 0, token: false })
  })
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
    await serving?.close()
    await rt?.close()
  })

  it('two clients define the same names at once; each reads back its own, and neither sees the other', async () => {
    const [a, b] = await Promise.all([httpClient('http-a'), httpClient('http-b')])
    const define = (who: string) => `const who = '${who}'\nconst items: string[] = []\nawait tools.sleep({ ms: 100 })\nitems.push(who)\nwho`
    const [da, db] = await Promise.all([run(a, define('A')), run(b, define('B'))])
    expect([da.value, db.value]).toEqual(['A', 'B'])
    const [ra, rb] = await Promise.all([run(a, "items.push('A2')\nreturn { who, items }"), run(b, 'return { who, items }')])
    expect(ra.value, ra.text).toEqual({ who: 'A', items: ['A', 'A2'] })
    expect(rb.value, rb.text).toEqual({ who: 'B', items: ['B'] })
    await run(a, "const onlyInA = 'a'")
    const peek = await run(b, 'return onlyInA')
    expect(peek.ok).toBe(false)
    expect(peek.text).toMatch(/Cannot find name 'onlyInA'/)
  })

  it('tools/call sent at once by one client run one after another in its session', async () => {
    const client = await httpClient('http-parallel')
    await run(client, 'let counter = 0')
    const bump = 'const before = counter\nawait tools.sleep({ ms: 50 })\ncounter = before + 1\nreturn counter'
    const answers = await Promise.all(Array.from({ length: 4 }, () => run(client, bump)))
    const ok = answers.filter((a) => a.ok)
    for (const a of answers.filter((x) => !x.ok)) expect(a.text).toMatch(/busy|already running|one run at a time|in progress/i)
    expect(ok.map((a) => a.value).sort()).toEqual(Array.from({ length: ok.length }, (_, i) => i + 1))
    expect((await run(client, 'counter')).value).toBe(ok.length)
  })

  it("a client that reconnects is a new MCP session: it starts fresh and the old one's state is not reachable", async () => {
    const first = await httpClient('http-first')
    await run(first, "const token = 'old-session-token'")
    await first.close()
    const again = await httpClient('http-again')
    const r = await run(again, 'return typeof (globalThis as any).token')
    expect(r.value).toBe('undefined')
  })
})

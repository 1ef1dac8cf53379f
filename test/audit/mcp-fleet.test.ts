/**
 * A fleet on one MCP server (issue 17, seen from the user's side): 8 conversations at once over streamable
 * HTTP, driven by the official MCP SDK client, each sending `run_code` turns with a pause between them (a
 * model thinking) and overlapping the others' turns. Every call is answered, with its own value and calls
 * in the order its program issued them; every console line of a turn reaches the client that sent it, as a
 * log notification, before the turn's result, and no other client; a session's state is its own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { createMcpExport } from '../../mcp/export.js'
import { serveHttp, type HttpServing } from '../../mcp/serve.js'
import type { ToolDefinition } from '../../vocabulary/types.js'

const SESSIONS = 8
const TURNS = 4

const tools: ToolDefinition[] = [
  {
    name: 'lookup',
    description: 'Looks a key up after a short wait (a remote call).',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
    execute: async (args) => {
      const { key } = args as { key: string }
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (key.startsWith('missing')) throw Object.assign(new Error(`no ${key}`), { code: 'ENOENT' })
      return { key, value: key.length }
    },
  },
]

/** The first turn declares what the later ones add to (session state). */
const FIRST = 'let seen: number[] = []\n'

/** A turn of session `s`: parallel lookups, a caught failure, console lines naming the turn; its state is its own. */
const turnProgram = (s: number, t: number) => `${t === 0 ? FIRST : ''}const keys = ['s${s}-a', 's${s}-bb', 's${s}-ccc']
const got = await Promise.all(keys.map((key) => tools.lookup({ key })))
console.log('session ${s} turn ${t} start')
try { await tools.lookup({ key: 'missing-${s}' }) } catch (e) { console.warn('session ${s} turn ${t}', (e as { code?: string }).code) }
seen.push(${t})
console.error('session ${s} turn ${t} end')
return { s: ${s}, t: ${t}, sum: got.reduce((n, g) => n + g.value, 0), seen }
`

interface Turn {
  result: CallToolResult
  /** The log notifications received while the call was open, in order. */
  logs: { level: string; data: string }[]
}

let rt: Runtime
let serving: HttpServing
const clients: Client[] = []

beforeAll(async () => {
  rt = await createRuntime({ tools })
  serving = await serveHttp(createMcpExport(rt), { port: 0, token: false })
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await serving?.close()
  await rt?.close()
})

async function conversation(s: number): Promise<Turn[]> {
  const client = new Client({ name: `fleet-${s}`, version: '1.0.0' })
  let logs: Turn['logs'] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ level: n.params.level, data: String(n.params.data) })
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)))
  clients.push(client)
  const turns: Turn[] = []
  for (let t = 0; t < TURNS; t++) {
    logs = []
    const result = (await client.callTool({ name: 'run_code', arguments: { code: turnProgram(s, t) } })) as CallToolResult
    turns.push({ result, logs })
    // The model thinks: 0–150 ms, so the sessions' turns overlap at different points.
    await new Promise((resolve) => setTimeout(resolve, ((s * 37 + t * 53) % 150) + 1))
  }
  return turns
}

describe('8 MCP sessions at once over streamable HTTP', () => {
  it('answer every turn with its own value; each console line goes to its own client, before the result', async () => {
    const all = await Promise.all(Array.from({ length: SESSIONS }, (_, s) => conversation(s)))
    for (const [s, turns] of all.entries()) {
      expect(turns.length).toBe(TURNS)
      for (const [t, { result, logs }] of turns.entries()) {
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
        const structured = result.structuredContent as {
          ok: boolean
          value: unknown
          calls: { name: string; ok: boolean; code?: string }[]
        }
        expect(structured.ok, text).toBe(true)
        const sum = `s${s}-a`.length + `s${s}-bb`.length + `s${s}-ccc`.length
        expect(structured.value).toEqual({ s, t, sum, seen: Array.from({ length: t + 1 }, (_, i) => i) })
        expect(structured.calls.map((c) => [c.name, c.ok, c.code ?? null])).toEqual([
          ['lookup', true, null],
          ['lookup', true, null],
          ['lookup', true, null],
          ['lookup', false, 'ENOENT'],
        ])
        // Streamed while the call was open: this turn's three lines, in order, and nothing of another session.
        expect(logs, `session ${s} turn ${t}`).toEqual([
          { level: 'info', data: `session ${s} turn ${t} start` },
          { level: 'warning', data: `session ${s} turn ${t} ENOENT` },
          { level: 'error', data: `session ${s} turn ${t} end` },
        ])
      }
    }
  }, 120_000)
})

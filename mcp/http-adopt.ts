/**
 * Taking up an MCP session another replica started. Its initialize request was kept in the shared store
 * when it began; a replica that gets a request with an `Mcp-Session-Id` it never saw replays that request
 * (and the `notifications/initialized` after it) through a new transport and protocol server for the same
 * id, so both are initialized exactly as the first replica's were (the client's capabilities included),
 * and the request then goes through as on any session. The codeact session behind it (caller = the MCP
 * session id) restores from the store on its next turn.
 *
 * The SDK's transport has no public way to be handed an id; its web-standard half takes a request as
 * a Fetch `Request`, which is how the kept initialize is replayed without a socket.
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { McpSessionStore } from '../runtime/store/types.js'
import type { Refusal } from './http-guard.js'

type Found = { ok: true; initialize: unknown } | ({ ok: false } & Refusal)
type Opened = { transport: StreamableHTTPServerTransport; server: { close(): Promise<void> }; added(): boolean }

/**
 * `takeUp(id)`: a session another replica started, taken up here — once, however many of its requests
 * arrive at once. A refusal (unknown: 404; store unreachable or no room: 503) is answered as it says.
 */
export function sessionTaker(
  store: McpSessionStore,
  table: { reserve(): boolean; release(): void },
  open: (id: string, initialized: () => Promise<void>) => Promise<Opened>,
): (id: string) => Promise<{ ok: true } | ({ ok: false } & Refusal)> {
  const running = new Map<string, Promise<{ ok: true } | ({ ok: false } & Refusal)>>()
  const takeUp = async (id: string): Promise<{ ok: true } | ({ ok: false } & Refusal)> => {
    const found = await findKept(store, id)
    if (!found.ok) return found
    if (!table.reserve())
      return { ok: false, status: 503, message: 'too many sessions, all busy; try again later', headers: { 'retry-after': '5' } }
    const { transport, server, added } = await open(id, async () => {})
    try {
      await replayInitialize(transport, id, found.initialize)
    } finally {
      if (!added()) {
        table.release()
        await server.close()
      }
    }
    return { ok: true }
  }
  return (id) => {
    const work = running.get(id) ?? takeUp(id).finally(() => running.delete(id))
    running.set(id, work)
    return work
  }
}

/** The kept initialize request of session `id` (404: no replica ever started it; 503: the store is unreachable). */
async function findKept(store: McpSessionStore, id: string): Promise<Found> {
  try {
    const initialize = await store.findSession(id)
    if (initialize === undefined) return { ok: false, status: 404, message: 'unknown session' }
    return { ok: true, initialize }
  } catch (e) {
    return { ok: false, status: 503, message: `the session store is unreachable: ${(e as Error).message}`, headers: { 'retry-after': '1' } }
  }
}

/** Replays the kept initialize (and `initialized`) into `transport`, already connected to its server. */
async function replayInitialize(transport: StreamableHTTPServerTransport, id: string, initialize: unknown): Promise<void> {
  const web = (transport as unknown as { _webStandardTransport: WebStandardStreamableHTTPServerTransport })._webStandardTransport
  const post = async (body: unknown, session?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    if (session) headers['mcp-session-id'] = session
    const res = await web.handleRequest(
      new Request('http://replica.invalid/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
      {
        parsedBody: body,
      },
    )
    // The answer went to the client that first initialized; read it to the end and drop it.
    await res.text()
    if (res.status >= 400) throw new Error(`the kept initialize of session ${id} was refused (${res.status})`)
  }
  await post(initialize)
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)
}

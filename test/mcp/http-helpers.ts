/** Raw HTTP bits for the MCP HTTP tests: an initialize body, the headers MCP wants, SSE parsing, the CLI. */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from './helpers.js'

export const BIN = join(REPO_ROOT, 'bin', 'codeact.mjs')

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-fetch', version: '1' } },
  })
}

/** initialize + initialized over raw fetch; returns the session id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: initializeBody() })
  if (res.status !== 200) throw new Error(`initialize: ${res.status} ${await res.text()}`)
  await res.text()
  const session = res.headers.get('mcp-session-id')!
  const ack = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  await ack.text()
  return session
}

/** The JSON-RPC messages of an SSE body, in the order they were sent. */
export function sseMessages(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '')
    .map((d) => JSON.parse(d) as Record<string, unknown>)
}

export interface CliServer {
  url: string
  /** The bearer token the server printed (generated when none was given), or undefined. */
  token: string | undefined
  /** `{ authorization: 'Bearer …' }` when the server asks for a token, else `{}`. */
  headers: Record<string, string>
  child: ChildProcess
  stderr(): string
  stop(): Promise<void>
}

/** The token `codeact mcp --http` generated and printed on stderr, if it did. */
export function printedToken(stderr: string): string | undefined {
  return /every request needs Authorization: Bearer ([^\s"]+)/.exec(stderr)?.[1]
}

/** `bin/codeact.mjs mcp --http 0 …` as a user starts it; resolves once it prints its URL. */
export function startHttpCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliServer> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '0', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let text = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`codeact mcp did not start: ${text}`)), 60_000)
    child.once('exit', (code) => reject(new Error(`codeact mcp exited ${code}: ${text}`)))
    child.stderr!.on('data', (c: Buffer) => {
      text += c.toString()
      const m = /serving streamable HTTP at ([^\s"]+)/.exec(text)
      if (m) {
        clearTimeout(timer)
        const token = printedToken(text) ?? (env.CODEACT_MCP_TOKEN || undefined)
        resolve({
          url: m[1]!,
          token,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          child,
          stderr: () => text,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done()
              child.once('exit', () => done())
              child.kill('SIGTERM')
            }),
        })
      }
    })
  })
}

/** The operator's view of `codeact mcp --http`: its probes, its metrics text, its log lines, its children. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach } from 'vitest'
import { REPO_ROOT } from '../mcp/helpers.js'
import { type CliServer, startHttpCli } from '../mcp/http-helpers.js'

export const TOOLS = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'tools.ts')

/**
 * A `start(args)` for a test file: each server it starts is stopped after the test (call at the top of
 * the file: it registers the afterEach).
 */
export function servicesForEachTest(): (args?: string[], env?: NodeJS.ProcessEnv) => Promise<CliServer> {
  const servers: CliServer[] = []
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop()
  })
  return async (args = [], env = process.env) => {
    const server = await startService(args, env)
    servers.push(server)
    return server
  }
}

/** The CLI with the test tools (increment, sleep, echo), no token, JSON logs, no type check. */
export function startService(args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<CliServer> {
  return startHttpCli(['--no-token', '--typecheck=off', '--log-format', 'json', '--tools', TOOLS, ...args], env)
}

/** `http://127.0.0.1:PORT/mcp` → `http://127.0.0.1:PORT/PATH`. */
export function route(url: string, path: string): string {
  return new URL(path, url).href
}

export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; sessionId: string }> {
  const client = new Client({ name: 'ops-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  await client.connect(transport)
  return { client, sessionId: transport.sessionId! }
}

export async function runCode(client: Client, code: string): Promise<CallToolResult> {
  return (await client.callTool({ name: 'run_code', arguments: { code } }, undefined, { timeout: 120_000 })) as CallToolResult
}

/** The samples of a Prometheus exposition: `name{labels}` → value (labels as written, sorted by the client). */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^(\S+?(?:\{[^}]*\})?) (\S+)$/.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    out.set(m[1]!, Number(m[2]))
  }
  return out
}

export async function metrics(url: string): Promise<Map<string, number>> {
  const res = await fetch(route(url, '/metrics'))
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`)
  return samples(await res.text())
}

/** The JSON objects the server logged (every stderr line must be one). */
export function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

export function exitOf(server: CliServer): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

/** Polls until `check` holds (each try waits 25 ms); throws after `tries`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, tries = 2_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`never happened: ${what}`)
}

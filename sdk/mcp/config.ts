/**
 * What an MCP server to import looks like: a command to spawn (stdio) or a URL (streamable HTTP), and the
 * Claude-Desktop config-file shape `{ "mcpServers": { NAME: { command, args, env, cwd } | { url } } }`.
 */

export interface McpStdioConfig {
  command: string
  args?: string[]
  /** Added to a minimal inherited environment (PATH, HOME …), as the MCP SDK and Claude Desktop do. */
  env?: Record<string, string>
  cwd?: string
  /** Start from this process's whole environment instead of the minimal one (the CLI's `--mcp` does). */
  inheritEnv?: boolean
}

export interface McpHttpConfig {
  url: string
  /** Extra request headers (e.g. `Authorization`). */
  headers?: Record<string, string>
}

export type McpServerConfig = (McpStdioConfig | McpHttpConfig) & {
  /** Deadline of one `tools/call` on this server (default: the runtime's tool timeout, else 120 s). */
  timeoutMs?: number
  /** How long the server may take to start and answer `initialize` and `tools/list` (default 30 s). */
  startTimeoutMs?: number
}

/** Servers by name; the name prefixes every tool of the server (`NAME__tool`). */
export type McpServersConfig = Record<string, McpServerConfig>

export function isHttpConfig(c: McpServerConfig): c is McpHttpConfig & McpServerConfig {
  return typeof (c as McpHttpConfig).url === 'string'
}

/** How a server is named in messages: the command line, or the URL. */
export function describeTarget(c: McpServerConfig): string {
  if (isHttpConfig(c)) return c.url
  return [c.command, ...(c.args ?? [])].map(quoteIfNeeded).join(' ')
}

function quoteIfNeeded(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * Checks a parsed config (a file's `mcpServers` object, or one entry) and returns it typed, or a message
 * naming the first problem. Unknown keys are ignored so Claude Desktop files load as they are.
 */
export function parseServersConfig(
  value: unknown,
  source: string,
): { ok: true; servers: McpServersConfig } | { ok: false; message: string } {
  const root = value !== null && typeof value === 'object' && 'mcpServers' in value ? (value as { mcpServers: unknown }).mcpServers : value
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    return { ok: false, message: `${source}: expected {"mcpServers": {NAME: {command, args?, env?, cwd?} | {url}}}` }
  }
  const servers: McpServersConfig = {}
  for (const [name, entry] of Object.entries(root)) {
    const checked = parseServerConfig(entry)
    if (typeof checked === 'string') return { ok: false, message: `${source}: server "${name}": ${checked}` }
    servers[name] = checked
  }
  return { ok: true, servers }
}

function parseServerConfig(entry: unknown): McpServerConfig | string {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'expected an object with "command" or "url"'
  const e = entry as Record<string, unknown>
  const timing: Pick<McpServerConfig, 'timeoutMs' | 'startTimeoutMs'> = {}
  for (const key of ['timeoutMs', 'startTimeoutMs'] as const) {
    if (e[key] === undefined) continue
    if (typeof e[key] !== 'number' || !(e[key] > 0)) return `"${key}" must be a positive number`
    timing[key] = e[key]
  }
  if (typeof e.url === 'string') {
    try {
      new URL(e.url)
    } catch {
      return `"url" is not a URL: ${e.url}`
    }
    if (e.headers !== undefined && !isStringRecord(e.headers)) return '"headers" must map names to strings'
    return { url: e.url, ...(e.headers ? { headers: e.headers as Record<string, string> } : {}), ...timing }
  }
  if (typeof e.command !== 'string' || e.command === '') return 'expected "command" (a string) or "url"'
  if (e.args !== undefined && !(Array.isArray(e.args) && e.args.every((a) => typeof a === 'string')))
    return '"args" must be an array of strings'
  if (e.env !== undefined && !isStringRecord(e.env)) return '"env" must map names to strings'
  if (e.cwd !== undefined && typeof e.cwd !== 'string') return '"cwd" must be a string'
  return {
    command: e.command,
    ...(e.args ? { args: e.args as string[] } : {}),
    ...(e.env ? { env: e.env as Record<string, string> } : {}),
    ...(typeof e.cwd === 'string' ? { cwd: e.cwd } : {}),
    ...timing,
  }
}

function isStringRecord(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')
}

/**
 * One imported MCP server: spawn or dial it, `initialize`, list its tools (all pages), call them, and follow
 * `notifications/tools/list_changed`. Opening never throws: a server that cannot start is a failure value
 * naming the server and its command. A server that dies later fails its pending and future calls with
 * ECONNRESET instead of hanging.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { JsonValue } from '../../vocabulary/types.js'
import { describeTarget, isHttpConfig, type McpServerConfig } from './config.js'
import { McpToolError, mapCallResult } from './result.js'

export const MCP_UNAVAILABLE = 'MCP_UNAVAILABLE'

/** A server that could not be started; its tools are not registered, the other servers are unaffected. */
export interface McpStartFailure {
  server: string
  target: string
  code: typeof MCP_UNAVAILABLE
  message: string
}

export interface ConnectionOptions {
  clientName?: string
  /** Called with each chunk a stdio server writes to stderr (by default it is kept only for error messages). */
  onStderr?: (server: string, text: string) => void
  /** Deadline of a `tools/call` when the server's config sets none. */
  defaultTimeoutMs?: number
}

export class McpConnection {
  #tools: Tool[] = []
  #listeners = new Set<() => void>()
  #dead: string | undefined
  #closing = false
  #stderr = ''

  readonly target: string

  private constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly options: ConnectionOptions,
  ) {
    this.target = describeTarget(config)
  }

  static async open(name: string, config: McpServerConfig, options: ConnectionOptions = {}): Promise<McpConnection | McpStartFailure> {
    const client = new Client({ name: options.clientName ?? 'codeact', version: '0.1.0' }, { capabilities: {} })
    const conn = new McpConnection(name, config, client, options)
    const startTimeout = config.startTimeoutMs ?? 30_000
    let transport: Transport
    try {
      transport = conn.#transport()
    } catch (e) {
      return conn.#failure(e)
    }
    try {
      await client.connect(transport, { timeout: startTimeout })
      conn.#tools = await conn.#listAll(startTimeout)
    } catch (e) {
      const failure = conn.#failure(e)
      await endFailedStart(client, transport)
      return failure
    }
    client.onclose = () => {
      if (!conn.#closing) conn.#dead = `it exited or closed the connection${conn.#stderrNote()}`
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        conn.#tools = await conn.#listAll(startTimeout)
      } catch {
        return // keep the last good list; calls will report what is wrong
      }
      for (const l of conn.#listeners) l()
    })
    return conn
  }

  get tools(): readonly Tool[] {
    return this.#tools
  }

  get alive(): boolean {
    return this.#dead === undefined && !this.#closing
  }

  /** Calls a tool by its original name. Resolves to the mapped value; throws McpToolError. */
  async call(tool: string, args: JsonValue, signal: AbortSignal): Promise<JsonValue> {
    if (this.#dead) throw new McpToolError('ECONNRESET', `MCP server "${this.name}" (${this.target}) is not running: ${this.#dead}`)
    const params = { name: tool, arguments: (args ?? {}) as Record<string, unknown> }
    const timeout = this.config.timeoutMs ?? this.options.defaultTimeoutMs ?? 120_000
    let result
    try {
      result = await this.client.callTool(params, undefined, { signal, timeout })
    } catch (e) {
      throw this.#callError(tool, e, signal, timeout)
    }
    return mapCallResult(tool, result)
  }

  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async close(): Promise<void> {
    this.#closing = true
    await this.client.close().catch(() => {})
  }

  #transport(): Transport {
    const c = this.config
    if (isHttpConfig(c)) {
      return new StreamableHTTPClientTransport(new URL(c.url), c.headers ? { requestInit: { headers: c.headers } } : undefined)
    }
    const env = c.inheritEnv ? { ...definedEnv(), ...c.env } : c.env
    const t = new StartedStdio({
      command: c.command,
      args: c.args ?? [],
      ...(env ? { env } : {}),
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: 'pipe',
    })
    t.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      this.#stderr = (this.#stderr + text).slice(-2_000)
      this.options.onStderr?.(this.name, text)
    })
    return t
  }

  async #listAll(timeout: number): Promise<Tool[]> {
    const all: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await this.client.listTools(cursor ? { cursor } : undefined, { timeout })
      all.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return all
  }

  #failure(e: unknown): McpStartFailure {
    const why =
      e instanceof McpError && e.code === ErrorCode.RequestTimeout
        ? `it did not answer within ${this.config.startTimeoutMs ?? 30_000} ms`
        : messageOf(e)
    return {
      server: this.name,
      target: this.target,
      code: MCP_UNAVAILABLE,
      message: `MCP server "${this.name}" is unavailable (${isHttpConfig(this.config) ? 'url' : 'command'}: ${this.target}): ${why}${this.#stderrNote()}. Its tools were not registered; this is an infrastructure problem, not the program's.`,
    }
  }

  #callError(tool: string, e: unknown, signal: AbortSignal, timeout: number): McpToolError {
    if (signal.aborted) return new McpToolError('ECANCELED', `${tool} was cancelled`)
    if (this.#dead)
      return new McpToolError('ECONNRESET', `MCP server "${this.name}" (${this.target}) stopped during the call: ${this.#dead}`)
    if (e instanceof McpError) {
      if (e.code === ErrorCode.RequestTimeout)
        return new McpToolError('ETIMEDOUT', `${tool}: MCP server "${this.name}" did not answer within ${timeout} ms`)
      if (e.code === ErrorCode.ConnectionClosed)
        return new McpToolError(
          'ECONNRESET',
          `MCP server "${this.name}" (${this.target}) closed the connection during the call${this.#stderrNote()}`,
        )
      if (e.code === ErrorCode.InvalidParams) return new McpToolError('EINVAL', `${tool}: ${e.message}`)
      if (e.code === ErrorCode.MethodNotFound) return new McpToolError('ENOSYS', `${tool}: ${e.message}`)
    }
    return new McpToolError('EREMOTE', `${tool} (MCP server "${this.name}"): ${messageOf(e)}`)
  }

  #stderrNote(): string {
    const tail = this.#stderr.trim().split('\n').slice(-3).join(' | ')
    return tail ? ` (its stderr ends: ${tail.slice(-300)})` : ''
  }
}

function definedEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((kv): kv is [string, string] => kv[1] !== undefined))
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** A stdio transport that remembers its server's pid: the SDK forgets it when its close begins. */
class StartedStdio extends StdioClientTransport {
  startedPid: number | null = null
  override async start(): Promise<void> {
    await super.start()
    this.startedPid = this.pid
  }
}

/** How long a server that failed to start has after SIGTERM before SIGKILL. */
const FAILED_START_GRACE_MS = 500

/**
 * Ends a server that did not start (no answer to `initialize` in time, a failed `tools/list`) before `open`
 * answers. The SDK's own close gives a stdio server 2 s after closing its stdin before a SIGTERM, and after a
 * failed `connect` the SDK runs that close without awaiting it: a host that finished within those 2 s (a
 * `codeact run`, a test) left a server that ignores its stdin running for ever. It never served anything, so
 * it gets a SIGTERM now and a SIGKILL if it is still there after FAILED_START_GRACE_MS; `open` answers once
 * it is gone (or a second grace has passed).
 */
async function endFailedStart(client: Client, transport: Transport): Promise<void> {
  const pid = transport instanceof StartedStdio ? transport.startedPid : null
  await client.close().catch(() => {})
  if (pid === null) return
  for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
    if (!signal(pid, sig)) return
    for (const until = Date.now() + FAILED_START_GRACE_MS; Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (!signal(pid, 0)) return
    }
  }
}

/** process.kill that answers whether the process was there (0: only asks). */
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig)
    return true
  } catch {
    return false
  }
}

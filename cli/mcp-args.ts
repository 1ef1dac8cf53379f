/**
 * The MCP import flags shared by `codeact run` and `codeact mcp`:
 *   --mcp NAME='COMMAND ARGS…'   a stdio server (the command line is split like a shell would, without expansion;
 *                                 it inherits this process's environment)
 *   --mcp NAME=URL                a streamable HTTP server (http:// or https://)
 *   --mcp-config FILE.json        Claude-Desktop shape: {"mcpServers": {NAME: {command, args, env, cwd} | {url}}}
 * Both repeat; a name given twice is a usage error.
 */
import { readFile } from 'node:fs/promises'
import { parseServersConfig, type McpServersConfig } from '../sdk/mcp/config.js'
import type { McpImport } from '../sdk/mcp/import.js'
import type { Runtime } from '../runtime/create-runtime.js'
import type { FlagValues } from './flag-values.js'
import { visible } from '../vocabulary/visible-text.js'

export const MCP_FLAG_OPTIONS = {
  mcp: { type: 'string', multiple: true },
  'mcp-config': { type: 'string', multiple: true },
} as const

export type McpFlagValues = FlagValues<typeof MCP_FLAG_OPTIONS>

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string }

/** Collects the servers named by the flags (files first, then `--mcp` in order). */
export async function serversFromFlags(values: McpFlagValues): Promise<Parsed<McpServersConfig>> {
  const servers: McpServersConfig = {}
  const add = (name: string, config: McpServersConfig[string], from: string): string | undefined => {
    if (name in servers) return `MCP server "${name}" is given twice (again in ${from})`
    servers[name] = config
    return undefined
  }
  for (const file of values['mcp-config'] ?? []) {
    let json: unknown
    try {
      json = JSON.parse(await readFile(file, 'utf8'))
    } catch (e) {
      return { ok: false, message: `--mcp-config ${file}: ${(e as Error).message}` }
    }
    const parsed = parseServersConfig(json, file)
    if (!parsed.ok) return parsed
    for (const [name, config] of Object.entries(parsed.servers)) {
      const dup = add(name, config, file)
      if (dup) return { ok: false, message: dup }
    }
  }
  for (const flag of values.mcp ?? []) {
    const parsed = parseMcpFlag(flag)
    if (!parsed.ok) return parsed
    const dup = add(parsed.value.name, parsed.value.config, `--mcp ${flag}`)
    if (dup) return { ok: false, message: dup }
  }
  return { ok: true, value: servers }
}

export function parseMcpFlag(flag: string): Parsed<{ name: string; config: McpServersConfig[string] }> {
  const eq = flag.indexOf('=')
  const name = flag.slice(0, eq).trim()
  const rest = flag.slice(eq + 1).trim()
  if (eq <= 0 || !name || !rest) return { ok: false, message: `--mcp needs NAME='COMMAND ARGS…' or NAME=URL, got "${flag}"` }
  if (/^https?:\/\//i.test(rest)) {
    try {
      new URL(rest)
    } catch {
      return { ok: false, message: `--mcp ${name}: "${rest}" is not a URL` }
    }
    return { ok: true, value: { name, config: { url: rest } } }
  }
  const words = splitCommandLine(rest)
  if (!words.ok) return { ok: false, message: `--mcp ${name}: ${words.message}` }
  const [command, ...args] = words.value
  if (!command) return { ok: false, message: `--mcp ${name}: empty command` }
  // Typed on the command line, so it sees the shell's environment (a config-file entry names its env).
  return { ok: true, value: { name, config: { command, args, inheritEnv: true } } }
}

/** Splits like a POSIX shell: whitespace separates, '…' is literal, "…" and \ escape; nothing expands. */
export function splitCommandLine(line: string): Parsed<string[]> {
  const words: string[] = []
  let word = ''
  let inWord = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) return { ok: false, message: 'unclosed single quote' }
      word += line.slice(i + 1, end)
      inWord = true
      i = end
    } else if (c === '"') {
      let j = i + 1
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++
        word += line[j]
      }
      if (j >= line.length) return { ok: false, message: 'unclosed double quote' }
      inWord = true
      i = j
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return { ok: true, value: words }
}

/**
 * Connects the flagged servers and registers their tools in `rt`. Servers that fail to start are reported
 * on `stderr` (naming server and command) and skipped. Returns undefined when no server was given.
 */
export async function attachMcpFromFlags(
  rt: Runtime,
  servers: McpServersConfig,
  stderr: NodeJS.WritableStream,
  options: { forwardStderr?: boolean } = {},
): Promise<McpImport | undefined> {
  if (Object.keys(servers).length === 0) return undefined
  // Loaded only when servers are named: without --mcp, `codeact run` never loads the MCP client SDK.
  const { attachMcp } = await import('../mcp/attach.js')
  const mcp = await attachMcp(rt, servers, {
    defaultTimeoutMs: 120_000,
    ...(options.forwardStderr
      ? {
          // A server's stderr reaches a person's terminal: shown escaped, like everything else printed there.
          onStderr: (name: string, text: string) =>
            void stderr.write(visible(text, { multiline: true }).replace(/^(?=.)/gm, `[${visible(name)}] `)),
        }
      : {}),
  })
  for (const f of mcp.failures) stderr.write(`codeact: ${visible(f.code)}: ${visible(f.message)}\n`)
  return mcp
}

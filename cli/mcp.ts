/**
 * `codeact mcp`: serve a runtime as an MCP server, over stdio (default) or streamable HTTP on 127.0.0.1.
 * Stdout belongs to the protocol in stdio mode, so everything human-readable goes to stderr.
 * Exit status: 0 the client went away or a signal stopped the server, 2 bad usage, 3 the runtime could not start.
 */
import { createMcpExport } from '../mcp/export.js'
import { normalizeOrigin } from '../mcp/http-guard.js'
import { serveStdio, type HttpOptions } from '../mcp/serve.js'
import { createRuntime, type RuntimeOptions } from '../runtime/create-runtime.js'
import { visible } from '../vocabulary/visible-text.js'
import { MCP } from './commands.js'
import { runtimeOptions } from './flags.js'
import { printedHelp } from './help.js'
import { sessionLimitsFromFlags } from './limit-flags.js'
import { storeFromFlags } from './store-flags.js'
import { attachMcpFromFlags, serversFromFlags } from './mcp-args.js'
import { parseCommand } from './parse.js'
import { recoveryLines } from './recovered.js'
import { opsOptions, serveService } from './mcp-service.js'
import { startTracing, tracingWanted } from './otel.js'

export async function mcpCommand(args: string[], io: { stderr: NodeJS.WritableStream } = { stderr: process.stderr }): Promise<number> {
  const usage = (message: string) => {
    const hint = /--help/.test(message) ? '' : '; codeact mcp --help shows its usage'
    io.stderr.write(`codeact mcp: ${visible(message)}${hint}\n`)
    return 2
  }
  let values
  try {
    ;({ values } = parseCommand(MCP, minimalArgs(args)))
  } catch (e) {
    return usage((e as Error).message)
  }
  if (printedHelp(MCP, values)) return 0
  const discovery = values.discovery ?? 'auto'
  if (discovery !== 'auto' && discovery !== 'always' && discovery !== 'never') return usage(`--discovery must be auto, always or never`)
  const address = values.http === undefined ? undefined : httpAddress(values.http)
  if (typeof address === 'string') return usage(address)
  const port = address?.port
  const http = httpOptions(values, port)
  if (!http.ok) return usage(http.message)
  if (address?.host !== undefined) http.value.host = address.host
  const ops = opsOptions(values, port, process.stderr.isTTY === true)
  if (!ops.ok) return usage(ops.message)
  const servers = await serversFromFlags(values)
  if (!servers.ok) return usage(servers.message)
  let options: RuntimeOptions
  try {
    options = await runtimeOptions(values)
    const processes = maxProcessesFromFlag(values['max-processes'], values.sandbox)
    if (typeof processes === 'string') return usage(processes)
    if (processes !== undefined) options.isolate = { ...options.isolate, maxProcesses: processes }
    const store = storeFromFlags(values, process.env.CODEACT_STORE)
    if (store !== undefined) options.store = store
    const minimal = minimalOptions(values)
    if (typeof minimal === 'string') return usage(minimal)
    Object.assign(options, minimal)
    const sessions = sessionLimitsFromFlags(values)
    if (Object.keys(sessions).length) {
      if (values.stateless) return usage('--max-realms, --realm-idle and --realm-memory apply to sessions; drop --stateless')
      options.sessions = sessions
    }
  } catch (e) {
    return usage((e as Error).message)
  }

  let rt
  try {
    rt = await createRuntime(options)
  } catch (e) {
    io.stderr.write(`codeact mcp: the runtime could not start: ${visible((e as Error).message)}\n`)
    return 3
  }
  for (const line of recoveryLines(rt, options.workspace?.root)) io.stderr.write(line + '\n')
  const imported = await attachMcpFromFlags(rt, servers.value, io.stderr, { forwardStderr: true })
  const exported = createMcpExport(rt, {
    exposeTools: values['expose-tools'] === true,
    discovery,
    sessions: values.stateless !== true,
    ...(options.mode === 'minimal' ? { minimal: true } : {}),
  })
  const tracing = tracingWanted(values.otel) ? await startTracing(rt) : undefined
  const shutdown = async () => {
    exported.close()
    await imported?.close()
    await rt.close()
  }

  if (port === undefined) {
    await serveStdio(exported)
    await shutdown()
    await tracing?.shutdown()
    return 0
  }
  const service = await serveService(rt, exported, http.value, ops.value, io)
  await service.stopped
  await shutdown()
  await tracing?.shutdown()
  return 0
}

/**
 * `--max-processes N`: the isolate processes serving MCP sessions at once (each session is its own caller
 * and never shares one). Past N live sessions, each turn of the overflow sessions is a cold spawn, so a
 * server for more sessions than the default 8 wants it raised; each process is ~20 MB of its own.
 */
function maxProcessesFromFlag(text: string | undefined, sandbox: string | undefined): number | string | undefined {
  if (text === undefined) return undefined
  if (sandbox === 'docker') return '--max-processes applies to the isolate sandbox'
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1 || n > 1024) return `--max-processes needs a whole number from 1 to 1024, got "${text}"`
  return n
}

/** `--http PORT` or `--http HOST:PORT` (`0.0.0.0:8080`, `[::]:8080`): where the server listens. */
export function httpAddress(text: string): { host?: string; port: number } | string {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s]+)):(\d+)$/i.exec(text)
  const port = Number(m ? m[3] : text)
  if (!(/^\d+$/.test(m ? (m[3] ?? '') : text) && port < 65536))
    return `--http needs PORT or HOST:PORT (e.g. 8080 or 0.0.0.0:8080), got "${text}"`
  const host = m ? (m[1] ?? m[2]) : undefined
  return host === undefined ? { port } : { host, port }
}

interface HttpFlagValues {
  token?: string | undefined
  'no-token'?: boolean | undefined
  'allow-origin'?: string[] | undefined
  'max-sessions'?: string | undefined
  'session-idle'?: string | undefined
  'max-body'?: string | undefined
  'max-bodies-in-flight'?: string | undefined
}

/** The HTTP server's options from the flags (and CODEACT_MCP_TOKEN); each is a usage error without --http. */
export function httpOptions(
  values: HttpFlagValues,
  port: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; value: HttpOptions } | { ok: false; message: string } {
  const given = (['token', 'no-token', 'allow-origin', 'max-sessions', 'session-idle', 'max-body', 'max-bodies-in-flight'] as const).filter(
    (k) => values[k] !== undefined,
  )
  if (port === undefined)
    return given.length ? { ok: false, message: `--${given[0]} applies to --http only` } : { ok: true, value: { port: 0 } }
  const value: HttpOptions = { port }
  if (values['no-token']) {
    if (values.token !== undefined) return { ok: false, message: '--token and --no-token exclude each other' }
    value.token = false
  }
  const token = values['no-token'] ? undefined : (values.token ?? (env.CODEACT_MCP_TOKEN || undefined))
  if (token !== undefined) {
    if (!/^[\x21-\x7e]{16,}$/.test(token))
      return { ok: false, message: '--token (or CODEACT_MCP_TOKEN) must be at least 16 printable characters without spaces' }
    value.token = token
  }
  try {
    if (values['allow-origin']) value.allowedOrigins = values['allow-origin'].map(normalizeOrigin)
  } catch (e) {
    return { ok: false, message: `--allow-origin: ${(e as Error).message}` }
  }
  const numbers = [
    ['max-sessions', 'maxSessions', 1],
    ['session-idle', 'sessionIdleMs', 1000],
    ['max-body', 'maxBodyBytes', 1024],
    ['max-bodies-in-flight', 'maxBodiesInFlightBytes', 1024],
  ] as const
  for (const [flag, key, min] of numbers) {
    const text = values[flag]
    if (text === undefined) continue
    const n = Number(text)
    if (!Number.isSafeInteger(n) || n < min)
      return { ok: false, message: `--${flag} needs a whole number of at least ${min}, got "${text}"` }
    value[key] = n
  }
  return { ok: true, value }
}

/** `--minimal` alone means Anthropic's schemas; `--minimal openai` / `--minimal=openai` name the vendor. */
function minimalArgs(args: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--minimal') out.push(args[i]!)
    else if (args[i + 1] === 'openai' || args[i + 1] === 'anthropic') out.push(`--minimal=${args[++i]}`)
    else out.push('--minimal=anthropic')
  }
  return out
}

function minimalOptions(values: {
  minimal?: string
  'max-shells'?: string
  'shell-timeout'?: string
  workspace?: string
}): Partial<RuntimeOptions> | string {
  if (values.minimal === undefined) {
    if (values['max-shells'] !== undefined || values['shell-timeout'] !== undefined)
      return '--max-shells and --shell-timeout apply to --minimal'
    return {}
  }
  if (values.minimal !== 'anthropic' && values.minimal !== 'openai') return `--minimal takes anthropic or openai, got "${values.minimal}"`
  if (values.workspace === undefined) return '--minimal needs --workspace DIR (the folder the bash and the editor work in)'
  const positive = (flag: string, v: string | undefined): number | string | undefined => {
    if (v === undefined) return undefined
    const n = Number(v)
    return Number.isSafeInteger(n) && n > 0 ? n : `${flag} needs a positive whole number, got "${v}"`
  }
  const maxShells = positive('--max-shells', values['max-shells'])
  const timeout = positive('--shell-timeout', values['shell-timeout'])
  if (typeof maxShells === 'string') return maxShells
  if (typeof timeout === 'string') return timeout
  return {
    mode: 'minimal',
    minimal: values.minimal,
    ...(maxShells !== undefined ? { maxShells } : {}),
    ...(timeout !== undefined ? { shellTimeoutMs: timeout } : {}),
  }
}

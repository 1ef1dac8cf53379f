/**
 * `codeact mcp`: serve a runtime as an MCP server, over stdio (default) or streamable HTTP on 127.0.0.1.
 * Stdout belongs to the protocol in stdio mode, so everything human-readable goes to stderr.
 * Exit status: 0 the client went away or a signal stopped the server, 2 bad usage, 3 the runtime could not start.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createMcpExport } from '../mcp/export.js'
import { serveHttp, serveStdio } from '../mcp/serve.js'
import { createRuntime, type RuntimeOptions } from '../runtime/create-runtime.js'
import { RUNTIME_FLAGS, runtimeOptions } from './flags.js'
import { MCP_FLAG_OPTIONS, MCP_USAGE, attachMcpFromFlags, serversFromFlags } from './mcp-args.js'

export { MCP_USAGE }

/** The flags of `codeact run` that shape the runtime (same names, same meaning), plus the export's own. */
const OPTIONS = {
  ...RUNTIME_FLAGS,
  http: { type: 'string' },
  'expose-tools': { type: 'boolean' },
  discovery: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...MCP_FLAG_OPTIONS,
} satisfies ParseArgsConfig['options']

export async function mcpCommand(args: string[], io: { stderr: NodeJS.WritableStream } = { stderr: process.stderr }): Promise<number> {
  const usage = (message: string) => {
    io.stderr.write(`codeact mcp: ${message}\nusage:\n${MCP_USAGE}\n`)
    return 2
  }
  let values
  try {
    ;({ values } = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }))
  } catch (e) {
    return usage((e as Error).message)
  }
  if (values.help) {
    io.stderr.write(`usage:\n${MCP_USAGE}\n`)
    return 0
  }
  const discovery = values.discovery ?? 'auto'
  if (discovery !== 'auto' && discovery !== 'always' && discovery !== 'never') return usage(`--discovery must be auto, always or never`)
  const port = values.http === undefined ? undefined : Number(values.http)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) return usage(`--http needs a port number, got "${values.http}"`)
  const servers = await serversFromFlags(values)
  if (!servers.ok) return usage(servers.message)
  let options: RuntimeOptions
  try {
    options = await runtimeOptions(values)
  } catch (e) {
    return usage((e as Error).message)
  }

  let rt
  try {
    rt = await createRuntime(options)
  } catch (e) {
    io.stderr.write(`codeact mcp: the runtime could not start: ${(e as Error).message}\n`)
    return 3
  }
  const imported = await attachMcpFromFlags(rt, servers.value, io.stderr, { forwardStderr: true })
  const exported = createMcpExport(rt, { exposeTools: values['expose-tools'] === true, discovery })
  imported?.onToolsChanged(() => exported.notifyToolsChanged())
  const shutdown = async () => {
    await imported?.close()
    await rt.close()
  }

  if (port === undefined) {
    await serveStdio(exported)
    await shutdown()
    return 0
  }
  const serving = await serveHttp(exported, { port })
  io.stderr.write(`codeact mcp: serving streamable HTTP at ${serving.url}\n`)
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await serving.close()
  await shutdown()
  return 0
}

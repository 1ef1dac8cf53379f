/**
 * The command line: a thin shell over createRuntime. Exit status: 0 ok, 1 the program failed,
 * 2 bad usage, 3 sandbox unavailable.
 */
import { readFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createRuntime, type RuntimeOptions } from '../create-runtime.js'
import { parseJSONL } from '../event-log.js'
import { replayObservations } from '../replay.js'
import { loadToolsModule } from './load-tools.js'
import { MCP_FLAG_OPTIONS, MCP_USAGE, attachMcpFromFlags, serversFromFlags } from './mcp-args.js'
import { mcpCommand } from './mcp.js'
import { watchLive } from './live.js'

export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const

class UsageError extends Error {}

const USAGE = `usage:
  codeact run PROGRAM.ts [--tools MODULE]... [--json] [--log FILE.jsonl]
                         [--timeout MS] [--memory MB] [--typecheck=error|warn|off]
                         [--workspace DIR [--read-only PATH]... [--no-exec] [--network|--no-network]]
                         [--sandbox isolate|docker]
                         [--mcp NAME='COMMAND ARGS…' | --mcp NAME=URL]... [--mcp-config FILE.json]...
  codeact sdk [--tools MODULE]... [--mcp …]... [--mcp-config FILE.json]...
${MCP_USAGE}
  codeact replay LOG.jsonl      print every observation the model saw, rebuilt from the log
PROGRAM may be - to read the program from standard input.`

const RUN_OPTIONS = {
  tools: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  log: { type: 'string' },
  timeout: { type: 'string' },
  memory: { type: 'string' },
  typecheck: { type: 'string' },
  workspace: { type: 'string' },
  'read-only': { type: 'string', multiple: true },
  'no-exec': { type: 'boolean' },
  'no-network': { type: 'boolean' },
  network: { type: 'boolean' },
  sandbox: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...MCP_FLAG_OPTIONS,
} satisfies ParseArgsConfig['options']

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest)
      case 'sdk':
        return await sdkCommand(rest)
      case 'replay':
        return await replayCommand(rest)
      case 'mcp':
        return await mcpCommand(rest)
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE + '\n')
        return command === undefined ? EXIT.usage : EXIT.ok
      default:
        throw new UsageError(`unknown command "${command}"`)
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`codeact: ${(e as Error).message}\n${USAGE}\n`)
      return EXIT.usage
    }
    process.stderr.write(`codeact: ${(e as Error).message}\n`)
    return EXIT.usage
  }
}

interface CommonValues {
  tools?: string[]
  timeout?: string
  memory?: string
  log?: string
  typecheck?: string
  workspace?: string
  'read-only'?: string[]
  'no-exec'?: boolean
  'no-network'?: boolean
  network?: boolean
  sandbox?: string
}

/** The CLI's flags, turned into exactly the options object an embedder would pass to createRuntime. */
export async function runtimeOptions(values: CommonValues): Promise<RuntimeOptions> {
  const tools = []
  for (const m of values.tools ?? []) tools.push(...(await loadToolsModule(m)))
  const options: RuntimeOptions = { tools, limits: {} }
  if (values.timeout !== undefined) options.limits!.timeoutMs = positive('--timeout', values.timeout)
  if (values.memory !== undefined) options.limits!.memoryMb = positive('--memory', values.memory)
  if (values.log) options.logFile = values.log
  if (values.typecheck !== undefined) {
    if (!['error', 'warn', 'off'].includes(values.typecheck)) throw new UsageError('--typecheck must be error, warn or off')
    options.typecheck = values.typecheck as 'error' | 'warn' | 'off'
  }
  if (values.sandbox !== undefined) {
    if (values.sandbox !== 'isolate' && values.sandbox !== 'docker') throw new UsageError('--sandbox must be isolate or docker')
    options.sandbox = values.sandbox
  }
  if (values.workspace !== undefined) {
    options.workspace = {
      root: values.workspace,
      readOnly: values['read-only'] ?? [],
      exec: !values['no-exec'],
      // Network is off unless asked for; --no-network states the default explicitly.
      network: values.network === true && !values['no-network'],
    }
  } else if (values['read-only'] || values['no-exec'] || values['no-network'] || values.network) {
    throw new UsageError('--read-only, --no-exec and --network need --workspace DIR')
  }
  return options
}

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: RUN_OPTIONS, allowPositionals: true, strict: true })
  if (values.help) {
    process.stdout.write(USAGE + '\n')
    return EXIT.ok
  }
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('run takes exactly one PROGRAM')
  const code = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`cannot read ${file}`)
  })
  if (values.log) await import('node:fs/promises').then((fs) => fs.writeFile(values.log!, ''))
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const rt = await createRuntime(await runtimeOptions(values))
  // MCP servers that fail to start are reported on stderr; the run goes on with the others.
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  const stopLive = values.json ? () => {} : watchLive(rt, process.stderr)
  try {
    const result = await rt.runCode(code)
    stopLive()
    if (values.json) process.stdout.write(JSON.stringify(result) + '\n')
    else process.stdout.write(result.observation + '\n')
    if (result.ok) return EXIT.ok
    return result.error?.kind === 'sandbox_unavailable' ? EXIT.unavailable : EXIT.failed
  } finally {
    await mcp?.close()
    await rt.close()
  }
}

async function replayCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true })
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('replay takes exactly one LOG.jsonl')
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`cannot read ${file}`)
  })
  for (const o of replayObservations(parseJSONL(text))) process.stdout.write(`── ${o.name} ${o.id} ──\n${o.content}\n\n`)
  return EXIT.ok
}

async function sdkCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { tools: RUN_OPTIONS.tools, ...MCP_FLAG_OPTIONS }, strict: true })
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const rt = await createRuntime({ ...(await runtimeOptions(values)), sandbox: inertSandbox(), typecheck: 'off' })
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  process.stdout.write(rt.sdk.declarations())
  await mcp?.close()
  await rt.close()
  return EXIT.ok
}

/** `codeact sdk` prints declarations only: no sandbox needs to start for that. */
function inertSandbox(): NonNullable<RuntimeOptions['sandbox']> {
  return {
    name: 'none',
    start: async () => {},
    run: async () => ({ ok: false, error: { kind: 'sandbox_unavailable', message: 'no sandbox' }, droppedOutputBytes: 0 }),
    close: async () => {},
  }
}

function positive(flag: string, text: string): number {
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} needs a positive number, got "${text}"`)
  return n
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

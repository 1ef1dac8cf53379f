/**
 * The command line: a thin shell over createRuntime. Exit status: 0 ok, 1 the program failed,
 * 2 bad usage, 3 sandbox unavailable, 130 interrupted (Ctrl-C cancelled the run).
 */
import { readFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { RuntimeOptions } from '../runtime/create-runtime.js'
import { DOCKER_USAGE } from './docker-flags.js'
import { RUNTIME_FLAGS, UsageError, runtimeOptions } from './flags.js'
import { MCP_FLAG_OPTIONS, MCP_USAGE, attachMcpFromFlags, serversFromFlags } from './mcp-args.js'
import { watchLive } from './live.js'
import { LIMIT_USAGE } from './limit-flags.js'
import { REPL_USAGE } from './repl-usage.js'
import { terminalReview } from './review.js'
import { recoveryLines } from './recovered.js'
import { summaryLines } from './summary.js'
import type { RunResult } from '../vocabulary/types.js'

// The runtime (and what it loads: zod, ajv, esbuild, the workspace tools …) is imported only once a command
// needs it, and `codeact run` first starts its child and checker thread (prestart.ts) so they come up meanwhile.
const loadRuntime = () => import('../runtime/create-runtime.js')

export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3, interrupted: 130 } as const

const USAGE = `usage:
  codeact run PROGRAM.ts [--tools MODULE]... [--json] [--log FILE.jsonl]
                         [--typecheck=error|warn|off] [--verbose]
                         ${LIMIT_USAGE}
                         [--ask TOOL]...   ask on the terminal before each call of TOOL (y/n/a)
                         [--workspace DIR [--read-only PATH]... [--no-exec] [--network|--no-network]
                                          [--dry-run | --atomic | --review]]
                         [--sandbox isolate|docker [--docker-OPTION VALUE]...]
                         [--mcp NAME='COMMAND ARGS…' | --mcp NAME=URL]... [--mcp-config FILE.json]...
  codeact sdk [--tools MODULE]... [--workspace DIR] [--mcp …]... [--mcp-config FILE.json]...
${MCP_USAGE}
${REPL_USAGE}
  codeact replay LOG.jsonl [--unverified]
                                print every observation the model saw, rebuilt from the log (only a log
                                whose every line checks against your key, unless --unverified)
PROGRAM may be - to read the program from standard input.
${DOCKER_USAGE}`

const RUN_OPTIONS = {
  ...RUNTIME_FLAGS,
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean', short: 'v' },
  review: { type: 'boolean' },
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
        // Loaded only for `codeact mcp`: `codeact run` never pulls in the MCP server SDK (a third of its start-up).
        return await (await import('./mcp.js')).mcpCommand(rest)
      case 'repl':
        return await (await import('./repl.js')).replCommand(rest)
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

const parseRun = (args: string[]) => parseArgs({ args, options: RUN_OPTIONS, allowPositionals: true, strict: true })

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseRun(args)
  if (values.help) {
    process.stdout.write(USAGE + '\n')
    return EXIT.ok
  }
  // Started already by bin/codeact.mjs (from the raw arguments) unless the CLI was called another way.
  const drop = (await import('./prestart.js')).prestart(values.sandbox, values.typecheck)
  try {
    const [file] = positionals
    if (!file || positionals.length > 1) throw new UsageError('run takes exactly one PROGRAM')
    return await runProgram(file, values)
  } finally {
    await drop()
  }
}

async function runProgram(file: string, values: ReturnType<typeof parseRun>['values']): Promise<number> {
  const runtime = loadRuntime()
  // Loaded meanwhile; a failure surfaces where it is awaited.
  runtime.catch(() => {})
  const code =
    file === '-'
      ? await readStdin()
      : await readFile(file, 'utf8').catch(() => {
          throw new UsageError(`cannot read ${file}`)
        })
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const options = await runtimeOptions(values)
  if (values.review) {
    if (!options.workspace) throw new UsageError('--review needs --workspace DIR')
    if (options.changes) throw new UsageError('--review stages the run itself; drop --dry-run/--atomic')
    if (!process.stdin.isTTY || !process.stderr.isTTY)
      throw new UsageError(
        '--review needs a terminal (stdin and stderr); use --dry-run to see the diff, or --atomic to apply all or nothing',
      )
    if (values.json) throw new UsageError('--review is interactive; it does not combine with --json')
  }
  const rt = await (await runtime).createRuntime(options)
  for (const line of recoveryLines(rt, options.workspace?.root)) process.stderr.write(line + '\n')
  // MCP servers that fail to start are reported on stderr; the run goes on with the others.
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  const tty = process.stderr.isTTY === true
  const live = values.json
    ? undefined
    : watchLive(rt, process.stderr, {
        tty,
        verbose: values.verbose === true,
        ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
      })
  const review = values.review ? terminalReview(process.stdin, process.stderr) : undefined
  // Ctrl-C cancels the run (a staged run then applies nothing) and still prints what happened; a second
  // one leaves at once (an apply in progress is crash-safe: the next start finishes it from its journal).
  const cancel = new AbortController()
  const onInterrupt = (): void => {
    if (cancel.signal.aborted) process.exit(EXIT.interrupted)
    process.stderr.write('\ncodeact: interrupted; cancelling the run (Ctrl-C again to leave at once)\n')
    cancel.abort()
  }
  process.on('SIGINT', onInterrupt)
  try {
    let result: RunResult
    try {
      result = await rt.runCode(code, { ...(review ? { review } : {}), signal: cancel.signal })
    } finally {
      process.off('SIGINT', onInterrupt)
      live?.stop()
      review?.close()
    }
    // Awaited: the bin exits right after, and a large --json result must not be cut at the pipe.
    if (values.json) await writeOut(JSON.stringify(result) + '\n')
    else {
      if (result.applied === 'dry-run')
        await writeOut(
          (result.changes ?? [])
            .filter((c) => c.diff && !c.path.endsWith('/'))
            .map((c) => c.diff)
            .join(''),
        )
      await writeOut(result.observation + '\n')
      if (live) for (const line of summaryLines(result, live.stats, review?.skipped)) process.stderr.write(line + '\n')
    }
    if (result.ok) return EXIT.ok
    if (cancel.signal.aborted) return EXIT.interrupted
    return result.error?.kind === 'sandbox_unavailable' ? EXIT.unavailable : EXIT.failed
  } finally {
    await mcp?.close()
    await rt.close()
  }
}

async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { unverified: { type: 'boolean' } }, allowPositionals: true, strict: true })
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('replay takes exactly one LOG.jsonl')
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`cannot read ${file}`)
  })
  const [{ parseJSONL }, { replayObservations }, { checkLog }] = await Promise.all([
    import('../runtime/event-log.js'),
    import('../runtime/replay.js'),
    import('../runtime/log-signing.js'),
  ])
  let events
  if (values.unverified) {
    process.stderr.write(`codeact: ${file} is replayed unverified: what follows may have been forged\n`)
    events = parseJSONL(text)
  } else {
    const checked = checkLog(text)
    if (!checked.ok) {
      process.stderr.write(
        `codeact: ${file} cannot be trusted: ${checked.line ? `line ${checked.line}: ` : ''}${checked.why}. Nothing is replayed; --unverified prints it anyway (what it shows may be forged)\n`,
      )
      return EXIT.failed
    }
    events = checked.events
  }
  for (const o of replayObservations(events)) process.stdout.write(`── ${o.name} ${o.id} ──\n${o.content}\n\n`)
  return EXIT.ok
}

async function sdkCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { ...RUNTIME_FLAGS, ...MCP_FLAG_OPTIONS }, strict: true })
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const { createRuntime } = await loadRuntime()
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

function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()))
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

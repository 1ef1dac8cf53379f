/**
 * The command line: a thin shell over createRuntime. Exit status: 0 ok, 1 the program failed,
 * 2 bad usage, 3 sandbox unavailable, 130 interrupted (Ctrl-C cancelled the run).
 */
import { fstatSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import type { RuntimeOptions } from '../runtime/create-runtime.js'
import { visible } from '../vocabulary/visible-text.js'
import { colourMode, shownDiff, useColour } from './colour.js'
import { COMMANDS, RUN, REPLAY, SDK } from './commands.js'
import { UsageError, runtimeOptions } from './flags.js'
import { helpText, printedHelp, topHelp, version } from './help.js'
import { attachMcpFromFlags, serversFromFlags } from './mcp-args.js'
import { watchLive } from './live.js'
import { parseCommand } from './parse.js'
import { personText } from './person-text.js'
import { terminalReview } from './review.js'
import { recoveryLines } from './recovered.js'
import { summaryLines } from './summary.js'
import type { RunResult } from '../vocabulary/types.js'

// The runtime (and what it loads: zod, ajv, esbuild, the workspace tools …) is imported only once a command
// needs it, and `codeact run` first starts its child and checker thread (prestart.ts) so they come up meanwhile.
const loadRuntime = () => import('../runtime/create-runtime.js')

export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3, interrupted: 130 } as const

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
      case '--version':
      case '-V':
        process.stdout.write(`codeact ${version()}\n`)
        return EXIT.ok
      case 'help':
        return helpCommand(rest)
      case undefined:
      case '--help':
      case '-h':
        process.stdout.write(topHelp())
        return command === undefined ? EXIT.usage : EXIT.ok
      default:
        throw new UsageError(`there is no command "${command}"; codeact --help lists the commands`)
    }
  } catch (e) {
    // Every message is shown escaped: it may quote a file name or a value given on the command line.
    const hint =
      e instanceof UsageError && e.pointAtHelp && !/--help/.test(e.message) && command ? `; codeact ${command} --help shows its usage` : ''
    process.stderr.write(`codeact: ${visible((e as Error).message)}${hint}\n`)
    return EXIT.usage
  }
}

/** `codeact help [COMMAND]`. */
function helpCommand([name]: string[]): number {
  const spec = COMMANDS.find((c) => c.name === name)
  if (name !== undefined && !spec) throw new UsageError(`there is no command "${name}"; codeact --help lists the commands`)
  process.stdout.write(spec ? helpText(spec) : topHelp())
  return EXIT.ok
}

const parseRun = (args: string[]) => parseCommand(RUN, args)

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseRun(args)
  if (printedHelp(RUN, values)) return EXIT.ok
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
  const colour = colourMode(values.color)
  const runtime = loadRuntime()
  // Loaded meanwhile; a failure surfaces where it is awaited.
  runtime.catch(() => {})
  const code = file === '-' ? await readStdin() : await readInput(file)
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
  if (values['no-atomic'] && (options.changes || values.review))
    throw new UsageError('--no-atomic applies each change as it is made; drop --atomic/--dry-run/--review, or --no-atomic')
  if (values['no-atomic'] && !options.workspace) throw new UsageError('--no-atomic needs --workspace DIR')
  // A person running a codemod expects all or nothing: a run that fails leaves the tree as it was. Not with
  // --ask on Docker: there the program sees the workspace read-only and each write is a call a person
  // approves as it is made, which a staged run cannot serve (sandbox/docker/sandbox.ts stageRun).
  const approvedInContainer = options.sandbox === 'docker' && (values.ask?.length ?? 0) > 0
  if (options.workspace && !options.changes && !values.review && !values['no-atomic'] && !approvedInContainer) options.changes = 'atomic'
  const rt = await (await runtime).createRuntime(options)
  for (const line of recoveryLines(rt, options.workspace?.root)) process.stderr.write(line + '\n')
  // MCP servers that fail to start are reported on stderr; the run goes on with the others.
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  const tty = process.stderr.isTTY === true
  const live = values.json
    ? undefined
    : watchLive(rt, process.stderr, {
        tty,
        checking: options.typecheck !== 'off',
        verbose: values.verbose === true,
        ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
      })
  const review = values.review
    ? terminalReview(process.stdin, process.stderr, { colour: useColour(colour, process.stderr), beforeAsking: () => live?.hold() })
    : undefined
  // Ctrl-C cancels the run (a staged run then applies nothing) and still prints what happened; a second
  // one leaves at once (an apply in progress is crash-safe: the next start finishes it from its journal).
  const cancel = new AbortController()
  const onInterrupt = (): void => {
    if (cancel.signal.aborted) process.exit(EXIT.interrupted)
    process.stderr.write('\ncodeact: interrupted; cancelling the run (Ctrl-C again to leave at once)\n')
    cancel.abort()
  }
  process.on('SIGINT', onInterrupt)
  const trace = values.trace === undefined ? undefined : await import('../runtime/trace-file.js')
  const stages = trace?.watchStages()
  try {
    let result: RunResult
    try {
      result = await rt.runCode(code, { ...(review ? { review } : {}), signal: cancel.signal })
    } finally {
      process.off('SIGINT', onInterrupt)
      stages?.stop()
      live?.stop()
      review?.close()
    }
    if (trace && values.trace !== undefined) {
      const json = trace.traceJson(result.events, stages?.marks, exclusiveTools(options.tools))
      await writeFile(values.trace, json + '\n').catch((e: Error) => {
        process.stderr.write(`codeact: could not write the trace to ${visible(values.trace ?? '')}: ${visible(e.message)}\n`)
      })
    }
    // Awaited: the bin exits right after, and a large --json result must not be cut at the pipe.
    if (values.json) await writeOut(JSON.stringify(result) + '\n')
    else {
      if (result.applied === 'dry-run') await writeOut(dryRunDiff(result, colour))
      // Console lines were shown live on stderr: said again on stdout only where stdout is somewhere else.
      const text = personText(result, file === '-' ? 'stdin' : file, live !== undefined && stdoutIsStderr())
      if (text) await writeOut(text + '\n')
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

/** Which of the given tools are barriers (exclusive), by name, for the trace. */
function exclusiveTools(tools: RuntimeOptions['tools']): (name: string) => boolean {
  const list = tools === undefined ? [] : Array.isArray(tools) ? tools : Object.values(tools)
  const names = new Set(list.filter((t) => t.exclusive === true).map((t) => t.name))
  return (name) => names.has(name)
}

/**
 * The dry run's diff on stdout. To a terminal (or with --color=always) its content is shown escaped and
 * coloured as asked; into a pipe or a file it stays a patch `git apply` takes (paths are git-quoted in both).
 */
function dryRunDiff(result: RunResult, mode: ReturnType<typeof colourMode>): string {
  const diff = (result.changes ?? [])
    .filter((c) => c.diff && !c.path.endsWith('/'))
    .map((c) => c.diff)
    .join('')
  const colour = useColour(mode, process.stdout)
  return process.stdout.isTTY || colour ? shownDiff(diff, colour) : diff
}

async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(REPLAY, args)
  if (printedHelp(REPLAY, values)) return EXIT.ok
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('replay takes exactly one LOG.jsonl')
  const text = await readInput(file)
  const [{ parseJSONL }, { replayObservations }, { checkLog }] = await Promise.all([
    import('../runtime/event-log.js'),
    import('../runtime/replay.js'),
    import('../runtime/log-signing.js'),
  ])
  let events
  if (values.unverified) {
    process.stderr.write(`codeact: ${visible(file)} is replayed unverified: what follows may have been forged\n`)
    events = parseJSONL(text)
  } else {
    const checked = checkLog(text)
    if (!checked.ok) {
      process.stderr.write(
        `codeact: ${visible(file)} cannot be trusted: ${checked.line ? `line ${checked.line}: ` : ''}${visible(checked.why)}. Nothing is replayed; --unverified prints it anyway (what it shows may be forged)\n`,
      )
      return EXIT.failed
    }
    events = checked.events
  }
  for (const o of replayObservations(events))
    process.stdout.write(visible(`── ${o.name} ${o.id} ──\n${o.content}\n\n`, { multiline: true }))
  return EXIT.ok
}

async function sdkCommand(args: string[]): Promise<number> {
  const { values } = parseCommand(SDK, args)
  if (printedHelp(SDK, values)) return EXIT.ok
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const { createRuntime } = await loadRuntime()
  const rt = await createRuntime({ ...(await runtimeOptions(values)), sandbox: inertSandbox(), typecheck: 'off' })
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  process.stdout.write(visible(rt.sdk.declarations(), { multiline: true }))
  await mcp?.close()
  await rt.close()
  return EXIT.ok
}

/** `codeact sdk` prints declarations only: no sandbox needs to start for that. */
function inertSandbox(): NonNullable<RuntimeOptions['sandbox']> {
  return {
    name: 'none',
    capabilities: { nodeModules: false, effectsOnlyThroughHost: true, programWrites: false, sessions: false, stagesItself: false },
    start: async () => {},
    run: async () => ({ ok: false, error: { kind: 'sandbox_unavailable', message: 'no sandbox' }, droppedOutputBytes: 0 }),
    close: async () => {},
  }
}

/** stdout and stderr are one terminal, one pipe or one file (`2>&1`, a CI log). */
function stdoutIsStderr(): boolean {
  try {
    const [a, b] = [fstatSync(1), fstatSync(2)]
    return a.dev === b.dev && a.ino === b.ino && a.rdev === b.rdev
  } catch {
    return false
  }
}

function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()))
}

function readInput(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => {
    throw new UsageError(`cannot read ${file}`, false)
  })
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

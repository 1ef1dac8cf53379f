/**
 * `codeact repl`: a person types TypeScript, each input runs in one session (its bindings are the next
 * input's), with the live progress line of `codeact run` while it runs and the observation after.
 * Multi-line input (cli/repl-complete.ts), history in a file (cli/repl-history.ts), dot commands
 * (cli/repl-commands.ts). Ctrl-C cancels the running program, not the REPL; at an empty prompt a second
 * Ctrl-C leaves, as Ctrl-D and `.exit` do.
 */
import { createInterface, type Interface } from 'node:readline'
import { createRuntime, type Runtime } from '../runtime/create-runtime.js'
import { recoveryLines } from './recovered.js'
import type { Session } from '../runtime/session.js'
import type { RunResult } from '../vocabulary/types.js'
import { visible } from '../vocabulary/visible-text.js'
import { REPL } from './commands.js'
import { UsageError, runtimeOptions } from './flags.js'
import { printedHelp } from './help.js'
import { sessionLimitsFromFlags } from './limit-flags.js'
import { parseCommand } from './parse.js'
import { watchLive } from './live.js'
import { attachMcpFromFlags, serversFromFlags } from './mcp-args.js'
import { needsMoreInput } from './repl-complete.js'
import { REPL_HELP, completions, dotCommand, sdkText, shownObservation, type DotCommand } from './repl-commands.js'
import { HISTORY_SIZE, historyPath, historySaver, loadHistory } from './repl-history.js'
import { summaryLines } from './summary.js'

const PROMPT = '> '
const MORE = '... '

export async function replCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(REPL, args, true)
  if (printedHelp(REPL, values)) return 0
  if (positionals.length) throw new UsageError('repl takes no PROGRAM (use codeact run for that)')
  const servers = await serversFromFlags(values)
  if (!servers.ok) throw new UsageError(servers.message)
  const options = await runtimeOptions(values)
  const realms = sessionLimitsFromFlags(values)
  if (Object.keys(realms).length) options.sessions = realms
  const rt = await createRuntime(options)
  for (const line of recoveryLines(rt, options.workspace?.root)) process.stderr.write(line + '\n')
  const mcp = await attachMcpFromFlags(rt, servers.value, process.stderr)
  if (values.session !== undefined && !/^[\w.:-]{1,128}$/.test(values.session))
    throw new UsageError('--session takes an id of letters, digits, and . _ : - (the one a REPL with --log printed)')
  const session = rt.session(values.session !== undefined ? { id: values.session } : {})
  try {
    const status = await repl(rt, session, { verbose: values.verbose === true, checking: options.typecheck !== 'off' }, values.log)
    // With a log, the session can be taken up again later, in a new REPL: it is rebuilt from the log.
    if (values.log && process.stdin.isTTY)
      process.stderr.write(`Session ${session.id} is in ${values.log}; resume it with --log ${values.log} --session ${session.id}\n`)
    return status
  } finally {
    // Closing a session ends it in the log too; with a log it stays open there, to be resumed.
    if (!values.log) await session.close()
    await mcp?.close()
    await rt.close()
  }
}

function banner(rt: Runtime, session: Session, log: string | undefined): string {
  const names = rt.tools.names()
  const shown = names.length > 8 ? [...names.slice(0, 8), '…'] : names
  const tools = names.length ? `${names.length} tool${names.length === 1 ? '' : 's'} (${shown.join(', ')})` : 'no tools'
  const kept = log ? ` · session ${session.id}, logged to ${log}` : ''
  return `codeact repl · ${tools}${kept} · state persists between inputs · .sdk shows the declarations, .help the commands\n`
}

/** `checking`: inputs are type-checked first, and the status line says so until one runs. */
function repl(
  rt: Runtime,
  session: Session,
  { verbose, checking }: { verbose: boolean; checking: boolean },
  log: string | undefined,
): Promise<number> {
  const { stdin: input, stdout: output, stderr: err } = process
  const terminal = input.isTTY === true && output.isTTY === true
  const file = historyPath()
  const rl = createInterface({
    input,
    output,
    terminal,
    prompt: PROMPT,
    history: loadHistory(file, (m) => err.write(`codeact: ${m}\n`)),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string) => completions(line, rt.tools.names(), session.declarations()),
  })
  rl.on(
    'history',
    historySaver(file, (m) => err.write(`codeact: ${m}\n`)),
  )
  /** The lines of an input that is not finished yet. */
  let pending: string[] = []
  /** Whole lines typed (or pasted) while an earlier one runs; they run in order. */
  const queue: string[] = []
  let running: AbortController | undefined
  let busy = false
  let closed = false
  let sawInterrupt = false

  const prompt = (): void => {
    if (closed) return
    rl.setPrompt(pending.length ? MORE : PROMPT)
    if (terminal) rl.prompt(true)
  }

  const command = async (cmd: DotCommand | 'unknown'): Promise<void> => {
    switch (cmd) {
      case 'help':
        output.write(REPL_HELP + '\n')
        break
      case 'exit':
        queue.length = 0
        rl.close()
        break
      case 'sdk':
        output.write(sdkText(rt.sdk.declarations(), session.declarations()))
        break
      case 'reset':
        await session.reset()
        output.write('The session is reset: every binding is forgotten.\n')
        break
      case 'break':
        break
      case 'unknown':
        err.write('Unknown REPL command; .help lists them.\n')
    }
  }

  const run = async (code: string): Promise<void> => {
    const controller = new AbortController()
    running = controller
    const live = watchLive(rt, err, {
      tty: err.isTTY === true,
      checking,
      verbose,
      ...(err.columns ? { columns: err.columns } : {}),
    })
    let result: RunResult
    try {
      result = await session.runCode(code, { signal: controller.signal })
    } catch (e) {
      err.write(`codeact: ${visible((e as Error).message)}\n`)
      return
    } finally {
      live.stop()
      running = undefined
    }
    const shown = shownObservation(result, true)
    if (shown) output.write(visible(shown, { multiline: true }) + '\n')
    if (result.calls.length || result.changes?.length) for (const line of summaryLines(result, live.stats)) err.write(line + '\n')
  }

  const take = async (line: string): Promise<void> => {
    sawInterrupt = false
    const cmd = dotCommand(line)
    if (pending.length === 0 && cmd) return command(cmd)
    if (cmd === 'break') {
      pending = []
      return
    }
    pending.push(line)
    const code = pending.join('\n')
    if (needsMoreInput(code)) return
    pending = []
    if (code.trim() !== '') await run(code)
  }

  return new Promise<number>((resolve) => {
    const pump = async (): Promise<void> => {
      if (busy) return
      busy = true
      while (queue.length) await take(queue.shift()!)
      busy = false
      if (closed) resolve(0)
      else prompt()
    }
    rl.on('line', (line) => {
      queue.push(line)
      void pump()
    })
    // Ctrl-C: cancel the running program; else drop the unfinished input; at an empty prompt, twice leaves.
    const interrupt = (): void => {
      if (busy) {
        queue.length = 0
        running?.abort()
        return
      }
      const empty = pending.length === 0 && rl.line.length === 0
      pending = []
      newLine(rl, output)
      if (empty) {
        if (sawInterrupt) {
          rl.close()
          return
        }
        sawInterrupt = true
        output.write('(To exit, press Ctrl+C again or Ctrl+D or type .exit)\n')
      } else sawInterrupt = false
      prompt()
    }
    rl.on('SIGINT', interrupt)
    // Not on a terminal (input piped), Ctrl-C reaches the process as a signal.
    const onSignal = (): void => (busy ? interrupt() : rl.close())
    process.on('SIGINT', onSignal)
    rl.on('close', () => {
      closed = true
      process.off('SIGINT', onSignal)
      if (terminal) {
        // Ctrl-D or .exit at a terminal: leave now, cancelling what runs. A pipe's end waits for its inputs.
        output.write('\n')
        queue.length = 0
        running?.abort()
      }
      if (!busy) resolve(0)
    })
    if (terminal) output.write(banner(rt, session, log))
    prompt()
  })
}

/** Leaves what was typed on screen and starts a new, empty line (what node's REPL does on Ctrl-C). */
function newLine(rl: Interface, output: NodeJS.WritableStream): void {
  const clearLine = (rl as unknown as { clearLine?: () => void }).clearLine
  if (typeof clearLine === 'function') clearLine.call(rl)
  else output.write('\n')
}

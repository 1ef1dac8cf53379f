/**
 * The command line: a thin shell over createRuntime. Exit status: 0 ok, 1 the program failed,
 * 2 bad usage, 3 sandbox unavailable.
 */
import { readFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createRuntime, type RuntimeOptions } from '../create-runtime.js'
import type { RunEvent } from '../types.js'
import { parseJSONL } from '../event-log.js'
import { replayObservations } from '../replay.js'
import { loadToolsModule } from './load-tools.js'
import { printLive } from './live.js'

export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const

class UsageError extends Error {}

const USAGE = `usage:
  codeact run PROGRAM.ts [--tools MODULE]... [--json] [--log FILE.jsonl]
                         [--timeout MS] [--memory MB]
  codeact sdk [--tools MODULE]...
  codeact replay LOG.jsonl      print every observation the model saw, rebuilt from the log
PROGRAM may be - to read the program from standard input.`

const RUN_OPTIONS = {
  tools: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  log: { type: 'string' },
  timeout: { type: 'string' },
  memory: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
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

async function runtimeOptions(values: { tools?: string[]; timeout?: string; memory?: string; log?: string }): Promise<RuntimeOptions> {
  const tools = []
  for (const m of values.tools ?? []) tools.push(...(await loadToolsModule(m)))
  const limits: RuntimeOptions['limits'] = {}
  if (values.timeout !== undefined) limits.timeoutMs = positive('--timeout', values.timeout)
  if (values.memory !== undefined) limits.memoryMb = positive('--memory', values.memory)
  return { tools, limits, ...(values.log ? { logFile: values.log } : {}) }
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
  const rt = await createRuntime(await runtimeOptions(values))
  const stopLive = values.json ? () => {} : rt.on('event', (e: RunEvent) => printLive(e, process.stderr))
  try {
    const result = await rt.runCode(code)
    stopLive()
    if (values.json) process.stdout.write(JSON.stringify(result) + '\n')
    else process.stdout.write(result.observation + '\n')
    if (result.ok) return EXIT.ok
    return result.error?.kind === 'sandbox_unavailable' ? EXIT.unavailable : EXIT.failed
  } finally {
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
  const { values } = parseArgs({ args, options: { tools: RUN_OPTIONS.tools }, strict: true })
  const rt = await createRuntime({ ...(await runtimeOptions(values)), sandbox: inertSandbox() })
  process.stdout.write(rt.sdk.declarations())
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

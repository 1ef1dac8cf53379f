/**
 * The flags that shape a runtime, shared by `codeact run`, `sdk` and `mcp` (same names, same meaning),
 * turned into exactly the options object an embedder would pass to createRuntime.
 */
import type { ParseArgsConfig } from 'node:util'
import type { RuntimeOptions } from '../runtime/create-runtime.js'
import { askOnTerminal } from './ask.js'
import { loadToolsModule } from './load-tools.js'

/** Bad usage of the command line: exit status 2 with the usage text. */
export class UsageError extends Error {}

export const RUNTIME_FLAGS = {
  tools: { type: 'string', multiple: true },
  log: { type: 'string' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  ask: { type: 'string', multiple: true },
  memory: { type: 'string' },
  typecheck: { type: 'string' },
  workspace: { type: 'string' },
  'read-only': { type: 'string', multiple: true },
  'no-exec': { type: 'boolean' },
  'no-network': { type: 'boolean' },
  network: { type: 'boolean' },
  sandbox: { type: 'string' },
} satisfies ParseArgsConfig['options']

export interface RuntimeFlagValues {
  tools?: string[]
  timeout?: string
  deadline?: string
  ask?: string[]
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
export async function runtimeOptions(values: RuntimeFlagValues): Promise<RuntimeOptions> {
  const tools = []
  for (const m of values.tools ?? []) tools.push(...(await loadToolsModule(m)))
  const options: RuntimeOptions = { tools, limits: {} }
  if (values.timeout !== undefined) options.limits!.timeoutMs = positive('--timeout', values.timeout)
  if (values.deadline !== undefined) options.limits!.deadlineMs = positive('--deadline', values.deadline)
  // Asked on the terminal; the MCP server answers its runs through the client instead (mcp/elicit.ts).
  if (values.ask?.length) Object.assign(options, { approve: values.ask, onApproval: askOnTerminal() })
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

function positive(flag: string, text: string): number {
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} needs a positive number, got "${text}"`)
  return n
}

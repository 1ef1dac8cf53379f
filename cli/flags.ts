/**
 * The flags that shape a runtime, shared by `codeact run`, `sdk` and `mcp` (same names, same meaning),
 * turned into exactly the options object an embedder would pass to createRuntime.
 */
import type { ParseArgsConfig } from 'node:util'
import type { RuntimeOptions } from '../runtime/create-runtime.js'
import { DOCKER_FLAGS, dockerOptionsFromFlags } from './docker-flags.js'
import { askOnTerminal } from './ask.js'
import type { FlagValues } from './flag-values.js'
import { loadToolsModule } from './load-tools.js'
import { LIMIT_FLAGS, STAGING_FLAGS, limitsFromFlags, stagingFromFlags } from './limit-flags.js'
import { UsageError } from './usage-error.js'

export { UsageError }

export const RUNTIME_FLAGS = {
  tools: { type: 'string', multiple: true },
  log: { type: 'string' },
  ask: { type: 'string', multiple: true },
  typecheck: { type: 'string' },
  workspace: { type: 'string' },
  'read-only': { type: 'string', multiple: true },
  'no-exec': { type: 'boolean' },
  'no-network': { type: 'boolean' },
  network: { type: 'boolean' },
  sandbox: { type: 'string' },
  // Batch work: one flag per limit, and how a run's workspace changes land (cli/limit-flags.ts).
  ...LIMIT_FLAGS,
  ...STAGING_FLAGS,
  // The Docker backend's options (cli/docker-flags.ts), with --sandbox docker.
  ...DOCKER_FLAGS,
} satisfies ParseArgsConfig['options']

export type RuntimeFlagValues = FlagValues<typeof RUNTIME_FLAGS>

/** The CLI's flags, turned into exactly the options object an embedder would pass to createRuntime. */
export async function runtimeOptions(values: RuntimeFlagValues): Promise<RuntimeOptions> {
  const tools = []
  for (const m of values.tools ?? []) tools.push(...(await loadToolsModule(m)))
  // collectWhenIdle: the process is codeact's own (run, mcp, repl), so it may ask V8 to collect when idle.
  const options: RuntimeOptions = { tools, limits: limitsFromFlags(values), collectWhenIdle: true }
  // Asked on the terminal; the MCP server answers its runs through the client instead (mcp/elicit.ts).
  if (values.ask?.length) Object.assign(options, { approve: values.ask, onApproval: askOnTerminal() })
  if (values.log) options.logFile = values.log
  if (values.typecheck !== undefined) {
    if (!['error', 'warn', 'off'].includes(values.typecheck)) throw new UsageError('--typecheck must be error, warn or off')
    options.typecheck = values.typecheck as 'error' | 'warn' | 'off'
  }
  if (values.sandbox !== undefined) {
    if (values.sandbox !== 'isolate' && values.sandbox !== 'docker') throw new UsageError('--sandbox must be isolate or docker')
    options.sandbox = values.sandbox
  }
  const docker = dockerOptionsFromFlags(values, values.sandbox, UsageError)
  if (docker) options.docker = { ...docker }
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
  const staging = stagingFromFlags(values)
  if (staging !== undefined) {
    if (!options.workspace) throw new UsageError('--dry-run and --atomic need --workspace DIR')
    options.changes = staging
  }
  return options
}

/**
 * The commands and their flags, as the parser sees them: `codeact COMMAND --help`, the parser's own errors
 * (cli/parse.ts) and docs/cli.md (scripts/cli-reference.mjs) all come from this table and cli/flag-docs.ts.
 */
import type { ParseArgsConfig } from 'node:util'
import type { DocumentedFlag, FlagDoc } from './flag-docs.js'
import { RUNTIME_FLAGS } from './flags.js'
import { SESSION_FLAGS } from './limit-flags.js'
import { STORE_FLAGS } from './store-flags.js'
import { MCP_FLAG_OPTIONS } from './mcp-args.js'

type Options = { [K in DocumentedFlag]?: NonNullable<ParseArgsConfig['options']>[string] }

export interface CommandSpec<O extends Options = Options> {
  name: string
  /** What follows the command besides flags, as usage shows it (`PROGRAM.ts`). */
  operands: string
  summary: string
  /** Paragraphs after the usage line. */
  about: string[]
  options: O
  /** This command's own wording of a shared flag. */
  docs?: { [K in keyof O & DocumentedFlag]?: Partial<FlagDoc> }
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const

export const RUN = {
  name: 'run',
  operands: 'PROGRAM.ts',
  summary: 'run a TypeScript program against the tools and print what happened',
  about: [
    "PROGRAM may be - to read the program from standard input. The program's console lines and the live status line go to stderr as they come; stdout gets what the run returned and did (and the console lines again only when stdout is not where stderr goes, such as a file of its own).",
    'Exit status: 0 ok, 1 the program failed, 2 bad usage, 3 the sandbox could not start, 130 interrupted (Ctrl-C cancels the run; a second Ctrl-C leaves at once).',
  ],
  options: {
    ...RUNTIME_FLAGS,
    json: { type: 'boolean' },
    trace: { type: 'string' },
    verbose: { type: 'boolean', short: 'v' },
    review: { type: 'boolean' },
    'no-atomic': { type: 'boolean' },
    color: { type: 'string' },
    ...MCP_FLAG_OPTIONS,
    ...HELP,
  },
} satisfies CommandSpec

export const SDK = {
  name: 'sdk',
  operands: '',
  summary: 'print the TypeScript declarations the model writes its program against',
  about: ['The same flags as run give the same tools: the declarations are what the program is checked against.'],
  options: { ...RUNTIME_FLAGS, ...MCP_FLAG_OPTIONS, ...HELP },
} satisfies CommandSpec

export const REPLAY = {
  name: 'replay',
  operands: 'LOG.jsonl',
  summary: 'print every observation the model saw, rebuilt from a --log file',
  about: [
    'Each observation is rebuilt from the log alone, byte for byte as the model read it. Only a log whose every line checks against your key is replayed, unless --unverified.',
  ],
  options: { unverified: { type: 'boolean' }, ...HELP },
} satisfies CommandSpec

export const MCP = {
  name: 'mcp',
  operands: '',
  summary: 'serve run_code (and with --expose-tools every tool) over MCP: stdio, or streamable HTTP',
  about: [
    'Stdout is the protocol in stdio mode; everything a person reads goes to stderr. Each connection keeps its run_code state (a session) unless --stateless; idle session realms are freed and restored by replay on the next call.',
    'Over HTTP a bearer token is required: --token, $CODEACT_MCP_TOKEN, or one generated and printed at start (--no-token turns the check off, with a warning). A client whose session was closed (idle, or evicted past --max-sessions) is told so on its next request.',
  ],
  options: {
    ...RUNTIME_FLAGS,
    http: { type: 'string' },
    token: { type: 'string' },
    'no-token': { type: 'boolean' },
    'allow-origin': { type: 'string', multiple: true },
    'max-sessions': { type: 'string' },
    'session-idle': { type: 'string' },
    'max-body': { type: 'string' },
    'max-bodies-in-flight': { type: 'string' },
    'drain-timeout': { type: 'string' },
    'log-format': { type: 'string' },
    otel: { type: 'boolean' },
    'max-processes': { type: 'string' },
    ...STORE_FLAGS,
    'expose-tools': { type: 'boolean' },
    discovery: { type: 'string' },
    ...SESSION_FLAGS,
    stateless: { type: 'boolean' },
    minimal: { type: 'string' },
    'max-shells': { type: 'string' },
    'shell-timeout': { type: 'string' },
    ...MCP_FLAG_OPTIONS,
    ...HELP,
  },
  docs: { ask: { help: 'ask the MCP client (by elicitation) before each call of TOOL (repeatable)' } },
} satisfies CommandSpec

export const REPL = {
  name: 'repl',
  operands: '',
  summary: "type TypeScript; every input runs in one session, so its bindings are the next input's",
  about: [
    ".help lists the REPL's commands. History is kept in ~/.codeact_repl_history (or $CODEACT_REPL_HISTORY; empty: none). With --log the session can be taken up again later with --session.",
  ],
  options: {
    ...RUNTIME_FLAGS,
    verbose: { type: 'boolean', short: 'v' },
    session: { type: 'string' },
    ...SESSION_FLAGS,
    ...MCP_FLAG_OPTIONS,
    ...HELP,
  },
} satisfies CommandSpec

export const COMMANDS: readonly CommandSpec[] = [RUN, SDK, REPL, MCP, REPLAY]

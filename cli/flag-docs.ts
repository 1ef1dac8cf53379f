/**
 * What every flag means, in one table: `--help` of each command and docs/cli.md (scripts/cli-reference.mjs)
 * are both generated from it and from the commands' parser definitions (cli/commands.ts), so they cannot
 * drift from what the parser accepts. A flag without an entry here fails the type check.
 */
import { DEFAULT_LIMITS } from '../runtime/limits.js'

export interface FlagDoc {
  /** The value's placeholder (`DIR`, `MS|30s|5m`); none for a boolean flag. */
  value?: string
  help: string
  group: FlagGroup
}

export const GROUPS = [
  'Output',
  'Tools and approvals',
  'Workspace',
  'Limits',
  'Sandbox',
  'Docker backend (with --sandbox docker)',
  'MCP servers to import',
  'MCP server',
  'Sessions',
  'General',
] as const
export type FlagGroup = (typeof GROUPS)[number]

const kib = (n: number) => `${n / 1024} KiB`
const L = DEFAULT_LIMITS

export const FLAG_DOCS = {
  json: { group: 'Output', help: 'print the whole RunResult as JSON on stdout (every change, every call), nothing else' },
  trace: {
    group: 'Output',
    value: 'FILE.json',
    help: 'write the run as a Chrome trace (Perfetto, chrome://tracing): stages, calls in lanes, waits',
  },
  verbose: { group: 'Output', help: 'a line per tool call as it finishes' },
  color: {
    group: 'Output',
    value: 'auto|always|never',
    help: 'colour diffs and prompts (default auto: on a terminal, unless NO_COLOR is set)',
  },
  log: { group: 'Output', value: 'FILE.jsonl', help: 'append every event (calls, results, console, approvals) to this JSONL log' },
  tools: {
    group: 'Tools and approvals',
    value: 'MODULE',
    help: 'load tools from a module exporting an array of tool definitions (repeatable)',
  },
  ask: { group: 'Tools and approvals', value: 'TOOL', help: 'ask on the terminal before each call of TOOL: y, n, a(lways) (repeatable)' },
  typecheck: {
    group: 'Tools and approvals',
    value: 'error|warn|off',
    help: 'type-check the program against the SDK first (default error: a certain failure stops it)',
  },
  workspace: {
    group: 'Workspace',
    value: 'DIR',
    help: 'give the program the workspace tools (read_file, write_file, edit_file, glob, bash …) on DIR',
  },
  'read-only': { group: 'Workspace', value: 'PATH', help: 'a path in the workspace the program may read but not change (repeatable)' },
  'no-exec': { group: 'Workspace', help: 'no bash tool' },
  network: { group: 'Workspace', help: 'give bash the network (default: none)' },
  'no-network': { group: 'Workspace', help: 'no network for bash (the default, stated)' },
  'dry-run': { group: 'Workspace', help: 'apply nothing: print the diff of what the program would change' },
  atomic: {
    group: 'Workspace',
    help: 'apply the changes all together at the end, only if the run ends ok (the default of run with --workspace)',
  },
  'no-atomic': {
    group: 'Workspace',
    help: 'run: apply each change as the program makes it; a failed run keeps what it changed and its first line says how to undo it',
  },
  review: { group: 'Workspace', help: 'show each change as a diff and ask apply / skip / all / quit (needs a terminal)' },
  timeout: {
    group: 'Limits',
    value: 'MS|30s|5m',
    help: `the program's own time, not counting waits on tools or a person (default ${L.timeoutMs / 1000} s)`,
  },
  deadline: { group: 'Limits', value: 'MS|10m', help: `the run's wall clock (default ${L.deadlineMs / 60_000} min)` },
  memory: { group: 'Limits', value: 'MB', help: `the program's heap (default ${L.memoryMb} MB)` },
  'max-tool-calls': { group: 'Limits', value: 'N', help: `tool calls per run (default ${L.maxToolCalls.toLocaleString('en-US')})` },
  'max-identical-calls': {
    group: 'Limits',
    value: 'N',
    help: `the same call (tool and arguments) in a row, each after the last answered, before the run stops (default ${L.maxIdenticalCalls})`,
  },
  'max-parallel': { group: 'Limits', value: 'N', help: `tool calls in flight at once (default ${L.maxParallelToolCalls})` },
  'max-output': { group: 'Limits', value: 'BYTES|4MiB', help: `console output kept per run (default ${kib(L.maxOutputBytes)})` },
  'max-diff-bytes': {
    group: 'Limits',
    value: 'BYTES|32MiB',
    help: `bytes read for a run's diffs and change list; larger or sparse files are summarised (default ${kib(L.maxDiffBytes)})`,
  },
  'max-observation': { group: 'Limits', value: 'BYTES|64KiB', help: `the observation text (default ${kib(L.maxObservationBytes)})` },
  'max-source': { group: 'Limits', value: 'BYTES', help: `the program's source (default ${kib(L.maxSourceBytes)})` },
  sandbox: { group: 'Sandbox', value: 'isolate|docker', help: 'where the program runs (default isolate: isolated-vm in a child process)' },
  'docker-image': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'NAME',
    help: 'runner image (default codeact-runner:latest, or $CODEACT_IMAGE)',
  },
  'docker-runtime': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'NAME',
    help: "OCI runtime, e.g. runsc for gVisor (default: the engine's)",
  },
  'docker-user': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'UID[:GID]',
    help: "the program's user (default: the workspace's owner when you are it or root)",
  },
  'docker-pool-size': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'N',
    help: 'warm containers kept ready (default 2; 0 = none)',
  },
  'docker-memory': { group: 'Docker backend (with --sandbox docker)', value: 'MB', help: 'container memory (default: --memory)' },
  'docker-cpus': { group: 'Docker backend (with --sandbox docker)', value: 'N', help: 'CPUs (default 1)' },
  'docker-pids-limit': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'N',
    help: 'processes and threads per container (default 128)',
  },
  'docker-tmp-size': { group: 'Docker backend (with --sandbox docker)', value: 'MB', help: "size of the container's /tmp (default 64)" },
  'docker-network': { group: 'Docker backend (with --sandbox docker)', help: 'give the container a network (default: none)' },
  'docker-start-timeout': {
    group: 'Docker backend (with --sandbox docker)',
    value: 'MS',
    help: 'how long a container may take to start (default 60000)',
  },
  mcp: {
    group: 'MCP servers to import',
    value: "NAME='COMMAND ARGS…'|NAME=URL",
    help: "an MCP server's tools, as tools.NAME.* (stdio command or http(s) URL; repeatable)",
  },
  'mcp-config': {
    group: 'MCP servers to import',
    value: 'FILE.json',
    help: 'servers from a Claude-Desktop style {"mcpServers": {…}} file (repeatable)',
  },
  http: {
    group: 'MCP server',
    value: '[HOST:]PORT',
    help: 'serve streamable HTTP on 127.0.0.1:PORT/mcp (or HOST:PORT, e.g. 0.0.0.0:8080 in a container) instead of stdio',
  },
  token: {
    group: 'MCP server',
    value: 'TOKEN',
    help: 'require this bearer token (also $CODEACT_MCP_TOKEN; 16+ printable characters; default: one generated and printed)',
  },
  'no-token': { group: 'MCP server', help: 'take calls without a token (any local user or page may call run_code)' },
  'allow-origin': { group: 'MCP server', value: 'URL', help: 'a browser origin allowed to call (repeatable; default: none)' },
  'max-sessions': { group: 'MCP server', value: 'N', help: 'HTTP sessions at once (default 100)' },
  'session-idle': { group: 'MCP server', value: 'MS', help: 'close an HTTP session idle this long (default 1800000)' },
  'max-body': { group: 'MCP server', value: 'BYTES', help: 'largest request body (default 4194304)' },
  'max-bodies-in-flight': {
    group: 'MCP server',
    value: 'BYTES',
    help: 'request bodies held at once across all requests; past it a 503 with Retry-After (default 67108864)',
  },
  'drain-timeout': {
    group: 'MCP server',
    value: 'MS',
    help: 'on SIGTERM, how long running calls may finish before they are cancelled (default 25000; a second signal exits at once)',
  },
  'log-format': { group: 'MCP server', value: 'json|text', help: 'the server log on stderr (default: text on a terminal, json otherwise)' },
  otel: {
    group: 'MCP server',
    help: 'export OpenTelemetry spans over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (on by itself when that is set)',
  },
  'max-processes': { group: 'MCP server', value: 'N', help: 'isolate processes at once, one per live session (default 8)' },
  store: {
    group: 'MCP server',
    value: 'URL',
    help: 'keep sessions in PostgreSQL (postgres://…; also $CODEACT_STORE) so any replica serves any session; default: in this process',
  },
  'store-lease': {
    group: 'MCP server',
    value: 'MS|15s',
    help: "a turn's lease on its session lapses this long after its last renewal (a dead replica's turn is lost after it; default 15 s)",
  },
  'store-wait': {
    group: 'MCP server',
    value: 'MS|30s',
    help: "a turn waits this long for another replica's turn of its session, then answers EBUSY (default 30 s)",
  },
  'store-event-ttl': {
    group: 'MCP server',
    value: 'MS|1h',
    help: 'keep SSE events for Last-Event-ID resumption this long (default 1 h)',
  },
  'store-session-ttl': {
    group: 'MCP server',
    value: 'MS|24h',
    help: 'delete a session from the store this long after its last turn (default 24 h)',
  },
  'store-max-events': { group: 'MCP server', value: 'N', help: 'SSE events kept per MCP session, oldest dropped first (default 1000)' },
  'expose-tools': { group: 'MCP server', help: 'list every tool too, not only run_code' },
  minimal: {
    group: 'MCP server',
    value: 'anthropic|openai',
    help: "Minimal mode: serve only a persistent bash and an editor over --workspace, in Anthropic's schemas (bash, str_replace_based_edit_tool; `--minimal` alone) or OpenAI's (shell, apply_patch)",
  },
  'max-shells': { group: 'MCP server', value: 'N', help: 'Minimal mode: persistent shells open at once, one per connection (default 8)' },
  'shell-timeout': {
    group: 'MCP server',
    value: 'MS',
    help: 'Minimal mode: how long one shell command may run before it is killed (default 120000)',
  },
  discovery: {
    group: 'MCP server',
    value: 'auto|always|never',
    help: 'offer the tool-discovery tools (default auto: when there are many tools)',
  },
  stateless: { group: 'MCP server', help: 'keep no run_code state between calls of a connection' },
  unverified: { group: 'General', help: 'replay a log that does not check against your key (what it shows may be forged)' },
  'max-realms': { group: 'Sessions', value: 'N', help: 'live session realms at once (default 64)' },
  'realm-idle': {
    group: 'Sessions',
    value: 'MS|10m',
    help: "free a session's realm idle this long; its next run restores it (default 10 min)",
  },
  'realm-memory': { group: 'Sessions', value: 'MB', help: "heap of each session's realm (default: --memory)" },
  session: { group: 'Sessions', value: 'ID', help: 'take up the session of an earlier REPL from its --log' },
  help: { group: 'General', help: "print this command's usage" },
} satisfies Record<string, FlagDoc>

export type DocumentedFlag = keyof typeof FLAG_DOCS

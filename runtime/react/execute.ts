/**
 * `rt.executeText`: a model's ReAct text in, the observation to append out. The actions become direct calls
 * through the same scheduler, dispatch, hooks, approvals and log as native calls; the turn's text (thoughts
 * included) is logged with them, so `replayReact` rebuilds each exchange byte for byte. Never throws for
 * anything the model wrote: a text that does not parse is an observation naming the form expected.
 */
import { randomUUID } from 'node:crypto'
import type { ApprovalHandler, EventData, JsonValue, Limits, ToolError } from '../../vocabulary/types.js'
import type { DispatchEnv } from '../dispatch.js'
import { raiseHint } from '../limits.js'
import { renderContent, runBatch, type ParsedCall } from '../native.js'
import { renderReactObservation } from './observe.js'
import { parseTurn, type ReactFormat } from './parse.js'
import { resolveAction } from './resolve.js'

export interface ExecuteTextOptions {
  /** Which forms count (default `auto`: `Tool[arg]`, `Finish[answer]`, `Action:`/`Action Input:`, `Final Answer:`). */
  format?: ReactFormat
  signal?: AbortSignal | null | undefined
  /** Answers the approvals this turn's calls ask for. */
  onApproval?: ApprovalHandler
}

/** One action of the turn, as it ran. */
export interface ReactCall {
  id: string
  name: string
  args: JsonValue
  ok: boolean
  value?: JsonValue
  error?: ToolError
  /** What the model reads for it (the text after `Observation:`). */
  content: string
}

export interface ExecuteTextResult {
  /** The text to append to the transcript (`Observation: …`); empty when the turn gave a final answer. */
  observation: string
  calls: ReactCall[]
  /** The answer of a `Finish[…]` / `Final Answer:`; the loop is over. */
  final?: string
}

export async function executeText(
  env: DispatchEnv,
  limits: Limits,
  text: string,
  options: ExecuteTextOptions = {},
): Promise<ExecuteTextResult> {
  const format = options.format ?? 'auto'
  if (!['auto', 'react', 'langchain'].includes(format))
    throw new TypeError(`codeact: executeText format must be auto, react or langchain, got ${String(format)}`)
  const turnId = `react_${randomUUID().slice(0, 8)}`
  const read = readTurn(env, limits, String(text), format, turnId)
  const parsed = read.calls
  const start: EventData['react/start'] = {
    turnId,
    text: read.text,
    format,
    ids: parsed.map((p) => p.call.id),
    ...(read.final !== undefined ? { final: read.final } : {}),
    ...(read.problem !== undefined ? { problem: read.problem } : {}),
  }
  env.log.append('react/start', start)
  const { results } = parsed.length
    ? await runBatch(env, limits.maxParallelToolCalls, parsed, options.signal, 'react', options.onApproval)
    : { results: [] }
  const calls = results.map((r, i): ReactCall => {
    const { call } = parsed[i]!
    const { content } = renderContent(call, r)
    const base = { id: call.id, name: call.name, args: call.args, content }
    return r.ok ? { ...base, ok: true, value: r.value } : { ...base, ok: false, error: r.error }
  })
  env.log.append('react/end', { turnId })
  const observation = renderReactObservation(
    start,
    calls.map((c) => c.content),
  )
  return { observation, calls, ...(start.final !== undefined ? { final: start.final } : {}) }
}

interface ReadTurn {
  /** The text as logged: whole, or cut at the source limit when it is over it. */
  text: string
  calls: ParsedCall[]
  final?: string
  /** The whole `Error (CODE): …` when nothing runs. */
  problem?: string
}

/** The turn's calls, its final answer, or why nothing runs; bounded by maxSourceBytes and maxToolCalls. */
function readTurn(env: DispatchEnv, limits: Limits, text: string, format: ReactFormat, turnId: string): ReadTurn {
  const bytes = Buffer.byteLength(text)
  if (bytes > limits.maxSourceBytes) {
    const problem = `Error (E2BIG): the text is ${bytes} bytes, over the ${limits.maxSourceBytes}-byte limit; ${raiseHint('maxSourceBytes')}`
    return { text: Buffer.from(text).subarray(0, limits.maxSourceBytes).toString(), calls: [], problem }
  }
  const turn = parseTurn(text, format, (n) => env.registry.get(n) !== undefined)
  if (turn.kind === 'final') return { text, calls: [], final: turn.answer }
  if (turn.kind === 'none')
    return { text, calls: [], problem: `Error (EINVAL): ${turn.why}; ${formsHint(format, env.registry.directNames())}` }
  if (turn.actions.length > limits.maxToolCalls) {
    const problem = `Error (EDQUOT): the text has ${turn.actions.length} actions, over the limit of ${limits.maxToolCalls} calls; ${raiseHint('maxToolCalls')}`
    return { text, calls: [], problem }
  }
  const calls = turn.actions.map((a, i): ParsedCall => {
    const r = resolveAction(env.registry, a)
    const call = { id: `${turnId}_${i + 1}`, name: r.name, args: 'args' in r ? r.args : null, origin: 'native' as const }
    return 'argsError' in r ? { call, argsError: r.argsError } : { call }
  })
  return { text, calls }
}

/** The forms a format accepts, said as the fix, with the tools there are. */
function formsHint(format: ReactFormat, tools: readonly string[]): string {
  const bracket = 'write `Action: tool_name[{"param": …}]` (one action per line; a one-parameter tool also takes `tool_name[plain text]`)'
  const langchain = 'write `Action: tool_name` and on the next line `Action Input: {"param": …}`'
  const forms = format === 'react' ? bracket : format === 'langchain' ? langchain : `${bracket}, or ${langchain.replace('write ', '')}`
  const end =
    format === 'langchain' ? '`Final Answer: …`' : format === 'react' ? '`Finish[answer]`' : '`Finish[answer]` or `Final Answer: …`'
  const list = tools.length ? tools.join(', ') : '(none)'
  return `${forms}; end with ${end}; tools: ${list}`
}

/**
 * `rt.executeText`: a model's ReAct text in, the observation to append out. The actions become direct calls
 * through the same scheduler, dispatch, hooks, approvals and log as native calls; the turn's text (thoughts
 * included) is logged with them, so `replayReact` rebuilds each exchange byte for byte. Never throws for
 * anything the model wrote: a text that does not parse is an observation naming the form expected.
 */
import { randomUUID } from 'node:crypto'
import type { ApprovalHandler, EventData, JsonValue, ToolError } from '../../vocabulary/types.js'
import type { DispatchEnv } from '../dispatch.js'
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
  maxParallel: number,
  text: string,
  options: ExecuteTextOptions = {},
): Promise<ExecuteTextResult> {
  const format = options.format ?? 'auto'
  if (!['auto', 'react', 'langchain'].includes(format))
    throw new TypeError(`codeact: executeText format must be auto, react or langchain, got ${String(format)}`)
  const turnId = `react_${randomUUID().slice(0, 8)}`
  const turn = parseTurn(String(text), format, (n) => env.registry.get(n) !== undefined)
  const parsed: ParsedCall[] =
    turn.kind === 'actions'
      ? turn.actions.map((a, i) => {
          const r = resolveAction(env.registry, a)
          const call = { id: `${turnId}_${i + 1}`, name: r.name, args: 'args' in r ? r.args : null, origin: 'native' as const }
          return 'argsError' in r ? { call, argsError: r.argsError } : { call }
        })
      : []
  const start: EventData['react/start'] = {
    turnId,
    text: String(text),
    format,
    ids: parsed.map((p) => p.call.id),
    ...(turn.kind === 'final' ? { final: turn.answer } : {}),
    ...(turn.kind === 'none' ? { problem: `${turn.why}; ${formsHint(format, env.registry.directNames())}` } : {}),
  }
  env.log.append('react/start', start)
  const { results } = parsed.length
    ? await runBatch(env, maxParallel, parsed, options.signal, 'react', options.onApproval)
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

/**
 * What the framework-neutral surface costs per call, next to the native batch path it shares and to calling
 * the tool's function directly (no validation, hooks, scheduler or log), all in the same run:
 *   rt.callTool, one OpenAI call through executeToolCalls, the AI SDK and Agents SDK adapters' execute.
 */
import { aiSdkTools } from '../adapters/ai-sdk.js'
import { openaiAgentsTools } from '../adapters/openai-agents.js'
import { createRuntime } from '../runtime/index.js'
import type { AnyToolDefinition } from '../vocabulary/types.js'
import type { BenchRow } from './types.js'

const N = 2000
const noop: AnyToolDefinition = {
  name: 'noop',
  description: 'Echoes a field.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
  execute: (args: { n: number }) => ({ n: args.n }),
}

async function perCall(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const rounds: number[] = []
  for (let r = 0; r < 5; r++) {
    const t = performance.now()
    for (let i = 0; i < N; i++) await fn(i)
    rounds.push(((performance.now() - t) / N) * 1000)
  }
  rounds.sort((a, b) => a - b)
  return { p50: rounds[2]!, p95: rounds[4]! }
}

export default async function clientsBench(): Promise<BenchRow[]> {
  const rt = await createRuntime({ tools: [noop], typecheck: 'off', logRetention: 1000 })
  try {
    const ai = aiSdkTools(rt).noop!
    const agents = openaiAgentsTools(rt).find((t) => t.name === 'noop')!
    // The bare function: it reads no context, so none is built (that is part of what the others cost).
    const direct = await perCall(async (i) => noop.execute({ n: i }, undefined as never))
    const call = await perCall((i) => rt.callTool('noop', { n: i }))
    const batch = await perCall((i) =>
      rt.executeToolCalls([{ id: `c${i}`, type: 'function', function: { name: 'noop', arguments: `{"n":${i}}` } }]),
    )
    const viaAi = await perCall((i) => ai.execute({ n: i }, { toolCallId: `a${i}` }))
    const viaAgents = await perCall((i) => agents.invoke({}, `{"n":${i}}`))
    const row = (name: string, s: { p50: number; p95: number }, baseline?: string): BenchRow => ({
      name,
      value: s.p50,
      unit: 'µs/call',
      ...(baseline ? { baseline } : {}),
      note: `p95 ${s.p95.toFixed(1)} µs over 5 × ${N} sequential calls`,
    })
    return [
      row('baseline: the tool function called directly', direct),
      row('one OpenAI call through executeToolCalls (batch of 1)', batch, 'baseline: the tool function called directly'),
      row('rt.callTool (validation, hooks, scheduler, log)', call, 'one OpenAI call through executeToolCalls (batch of 1)'),
      row('AI SDK adapter execute', viaAi, 'rt.callTool (validation, hooks, scheduler, log)'),
      row('Agents SDK adapter invoke (JSON text in)', viaAgents, 'rt.callTool (validation, hooks, scheduler, log)'),
    ]
  } finally {
    await rt.close()
  }
}

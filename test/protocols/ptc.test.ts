/**
 * Programmatic tool calling's shapes from the user's side: `allowedCallers` on both sides (the SDK a program
 * sees, the tools a framework gets and native calls), each call tagged with its caller as OpenAI tags them,
 * a program written for OpenAI's PTC run unchanged (type-checked), and the `program` tool that stands in for
 * the hosted one driven by the real AI SDK and OpenAI Agents SDK.
 */
import { Agent, Runner, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { aiSdkProgramTool, aiSdkTools } from '../../adapters/ai-sdk.js'
import { openaiAgentsProgramTool } from '../../adapters/openai-agents.js'
import type { AnyToolDefinition, RunEvent } from '../../runtime/index.js'
import { replayObservations } from '../../runtime/replay.js'
import { programOutput } from '../../runtime/ptc/program.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const INVENTORY: Record<string, number> = { alpha: 7, beta: 11, gamma: 2 }
const DEMAND: Record<string, number> = { alpha: 10, beta: 4, gamma: 9 }
const tools = [
  defineTool({
    name: 'get_inventory',
    description: 'Available units of a product.',
    parameters: z.object({ sku: z.string() }),
    output: z.object({ sku: z.string(), units: z.number() }),
    allowedCallers: ['programmatic'],
    execute: async ({ sku }) => ({ sku, units: INVENTORY[sku] ?? 0 }),
  }),
  defineTool({
    name: 'get_weekly_demand',
    description: 'Forecast units sold this week.',
    parameters: z.object({ sku: z.string() }),
    output: z.object({ sku: z.string(), units: z.number() }),
    allowed_callers: ['programmatic'],
    execute: async ({ sku }) => ({ sku, units: DEMAND[sku] ?? 0 }),
  }),
  defineTool({
    name: 'place_order',
    description: 'Orders units of a product (a person decides: direct calls only).',
    parameters: z.object({ sku: z.string(), units: z.number() }),
    allowedCallers: ['direct'],
    execute: async ({ sku, units }) => `ordered ${units} × ${sku}`,
  }),
  defineTool({
    name: 'list_skus',
    description: 'Every product.',
    parameters: z.object({}),
    output: z.array(z.string()),
    execute: async () => Object.keys(INVENTORY),
  }),
]

/** The shape of program OpenAI's PTC guide has a model write: globals, Promise.all, text(), a returned object. */
const OPENAI_PROGRAM = `const skus = await list_skus();
const [inventory, demand] = await Promise.all([
  Promise.all(skus.map((sku) => get_inventory({ sku }))),
  Promise.all(skus.map((sku) => get_weekly_demand(sku))),
]);
const recommendations = skus
  .map((sku, i) => ({ sku, reorder_units: Math.max(demand[i].units + 5 - inventory[i].units, 0) }))
  .filter((r) => r.reorder_units > 0)
  .sort((a, b) => b.reorder_units - a.reorder_units);
text(\`checked \${skus.length} products\`);
return { recommendations, total_reorder_units: recommendations.reduce((sum, r) => sum + r.reorder_units, 0) };`

const callers = (events: readonly RunEvent[]) =>
  events.flatMap((e) => (e.type === 'tool/call' && 'origin' in e.data ? [`${e.data.name} ${JSON.stringify(e.data.caller)}`] : []))

describe('allowedCallers', () => {
  it('a direct-only tool is absent from the SDK a program sees and refused inside a program', async () => {
    const rt = await testRuntime({ tools })
    expect(rt.sdk.declarations()).not.toContain('place_order')
    expect(rt.tools.names()).toEqual(['get_inventory', 'get_weekly_demand', 'list_skus'])
    const run = await rt.runCode("return await tools.place_order({ sku: 'alpha', units: 1 })")
    expect(run.ok).toBe(false)
    expect(run.calls).toMatchObject([{ name: 'place_order', ok: false, error: { code: 'ENOSYS' } }])
    const checked = await testRuntime({ tools, typecheck: 'error' })
    const typed = await checked.runCode("return await tools.place_order({ sku: 'alpha', units: 1 })")
    expect(typed.error?.kind).toBe('type')
    expect(typed.calls).toEqual([])
  })

  it('a programmatic-only tool is absent from the definitions a framework gets and refused as a direct call', async () => {
    const rt = await testRuntime({ tools })
    expect(rt.tools.definitions().map((d) => d.name)).toEqual(['list_skus', 'place_order', 'run_code'])
    expect(Object.keys(aiSdkTools(rt))).toEqual(['list_skus', 'place_order', 'run_code'])
    const refused =
      'get_inventory can only be called from a program (allowedCallers: ["programmatic"]); call `tools.get_inventory(…)` inside run_code'
    expect(await rt.callTool('get_inventory', { sku: 'alpha' })).toMatchObject({ ok: false, code: 'ENOSYS', message: refused })
    const [answer] = await rt.executeToolCalls([
      { id: 'c1', type: 'function', function: { name: 'get_weekly_demand', arguments: '{"sku":"alpha"}' } },
    ])
    expect(answer).toMatchObject({
      role: 'tool',
      tool_call_id: 'c1',
      content: expect.stringMatching(/^Error \(ENOSYS\): get_weekly_demand can only be called from a program/),
    })
    // …and callable from a program, both spellings.
    const run = await rt.runCode("return [await tools.get_inventory({ sku: 'alpha' }), await tools.get_weekly_demand({ sku: 'alpha' })]")
    expect(run.value).toEqual([
      { sku: 'alpha', units: 7 },
      { sku: 'alpha', units: 10 },
    ])
  })

  it('refuses a definition whose allowedCallers is not direct and/or programmatic', async () => {
    const rt = await testRuntime({})
    const bad: AnyToolDefinition = { name: 'x', description: '', parameters: {}, execute: () => 1 }
    Reflect.set(bad, 'allowedCallers', ['model'])
    expect(() => rt.tools.register([bad])).toThrow('allowedCallers must list "direct" and/or "programmatic"')
  })
})

describe('caller tags', () => {
  it('tags a program’s sub-calls { type: program, caller_id } and direct calls { type: direct }, in events and results', async () => {
    const rt = await testRuntime({ tools })
    const run = await rt.runCode("return await tools.get_inventory({ sku: 'beta' })")
    const runId = run.calls[0]!.id.split('.')[0]!
    expect(run.events.some((e) => e.type === 'run/start' && 'runId' in e.data && e.data.runId === runId)).toBe(true)
    expect(run.calls[0]!.caller).toEqual({ type: 'program', caller_id: runId })
    await rt.callTool('list_skus', {})
    await rt.executeToolCalls([
      { id: 'n1', type: 'function', function: { name: 'run_code', arguments: JSON.stringify({ code: 'return await tools.list_skus()' }) } },
    ])
    expect(callers(rt.log.all())).toEqual([
      `get_inventory {"type":"program","caller_id":"${runId}"}`,
      'list_skus {"type":"direct"}',
      'run_code {"type":"direct"}',
      'list_skus {"type":"program","caller_id":"n1"}',
    ])
  })
})

describe('a program written for OpenAI PTC, run unchanged', () => {
  it('type-checks and runs: tools as globals (an arguments object or the plain value), text() output, the returned value', async () => {
    const rt = await testRuntime({ tools, typecheck: 'error' })
    const out = await rt.runPtcProgram(OPENAI_PROGRAM)
    expect(out.status).toBe('completed')
    expect(out.result).toBe(
      'checked 3 products\n{"recommendations":[{"sku":"gamma","reorder_units":12},{"sku":"alpha","reorder_units":8}],"total_reorder_units":20}',
    )
    expect(out.run.calls.map((c) => c.name)).toEqual([
      'list_skus',
      ...Array(3).fill('get_inventory'),
      ...Array(3).fill('get_weekly_demand'),
    ])
    expect(out.run.calls.every((c) => c.caller?.type === 'program')).toBe(true)
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('the log alone rebuilds what the model saw of a PTC program, byte for byte', async () => {
    const rt = await testRuntime({ tools })
    const done = await rt.runPtcProgram(OPENAI_PROGRAM)
    const failed = await rt.runPtcProgram("const r = await get_inventory('alpha')\nthrow new Error('short by ' + r.units)")
    const replayed = replayObservations(rt.log.all()).filter((o) => o.name === 'run')
    expect(replayed.map((o) => o.content)).toEqual([done.run.observation, failed.run.observation])
    for (const [i, out] of [done, failed].entries())
      expect(programOutput({ ...out.run, observation: replayed[i]!.content }).result).toBe(out.result)
  })

  it('an error keeps the program’s own line numbers and answers status incomplete', async () => {
    const rt = await testRuntime({ tools })
    const out = await rt.runPtcProgram(
      "text('start')\nconst r = await get_inventory({ sku: 'alpha' })\nthrow new Error('stock check failed at ' + r.units)",
    )
    expect(out.status).toBe('incomplete')
    expect(out.result).toContain('stock check failed at 7')
    expect(out.result).toContain('line 3')
    expect(out.result).toContain('start')
  })

  it('a program that breaks out of its block still cannot reach a direct-only tool', async () => {
    const rt = await testRuntime({ tools })
    const out = await rt.runPtcProgram("} { return await tools.place_order({ sku: 'alpha', units: 99 })")
    expect(out.status).toBe('incomplete')
    expect(out.run.calls).toMatchObject([{ name: 'place_order', ok: false, error: { code: 'ENOSYS' } }])
  })

  it('what one program does to the globals is gone for the next', async () => {
    const rt = await testRuntime({ tools })
    await rt.runPtcProgram("globalThis.text = () => {}; globalThis.get_inventory = async () => ({ sku: 'x', units: 1e9 }); return 1")
    const out = await rt.runPtcProgram("const r = await get_inventory('alpha'); text(r.units)")
    expect(out).toMatchObject({ status: 'completed', result: '7' })
  })

  it('a program that declares a name of a global shadows it', async () => {
    const rt = await testRuntime({ tools })
    const out = await rt.runPtcProgram('const text = (s) => s.toUpperCase();\nreturn text("mine")')
    expect(out).toMatchObject({ status: 'completed', result: 'MINE' })
  })
})

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

describe('the program tool in place of the hosted one', () => {
  it('AI SDK: generateText calls `program` with the hosted input and gets the hosted output shape back', async () => {
    const rt = await testRuntime({ tools })
    const prompts: string[] = []
    let step = 0
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt, tools: offered }) => {
        prompts.push(JSON.stringify({ prompt, offered: offered?.map((t) => t.name) }))
        if (step++ === 0)
          return {
            content: [{ type: 'tool-call', toolCallId: 'p1', toolName: 'program', input: JSON.stringify({ code: OPENAI_PROGRAM }) }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          }
        return {
          content: [{ type: 'text', text: 'reorder gamma and alpha' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }
      },
    })
    const result = await generateText({
      model,
      prompt: 'Which products should we reorder?',
      tools: { program: aiSdkProgramTool(rt), ...aiSdkTools(rt) },
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe('reorder gamma and alpha')
    const toolResult = result.steps[0]!.toolResults[0]!
    expect(toolResult.output).toEqual({ status: 'completed', result: expect.stringMatching(/^checked 3 products\n\{"recommendations"/) })
    expect(prompts[0]).toContain('"offered":["program","list_skus","place_order","run_code"]')
    expect(prompts[1]).toContain('checked 3 products')
  })

  it('OpenAI Agents SDK: a Runner calls `program` (strict { code }) and the model reads the program’s result', async () => {
    const rt = await testRuntime({ tools })
    const requests: ModelRequest[] = []
    const model: Model = {
      async getResponse(request): Promise<ModelResponse> {
        requests.push(request)
        const input = Array.isArray(request.input) ? request.input : []
        const result = input.find((i) => i.type === 'function_call_result')
        const output = result && result.type === 'function_call_result' ? result.output : undefined
        return {
          usage: new Usage(),
          output: output
            ? [
                {
                  type: 'message',
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: `saw ${JSON.stringify(output)}` }],
                },
              ]
            : [
                {
                  type: 'function_call',
                  callId: 'p1',
                  name: 'program',
                  status: 'completed',
                  arguments: JSON.stringify({ code: OPENAI_PROGRAM }),
                },
              ],
        }
      },
      getStreamedResponse() {
        throw new Error('not streamed here')
      },
    }
    const agent = new Agent({ name: 'planner', model, tools: [openaiAgentsProgramTool(rt)] })
    const out = await new Runner().run(agent, 'Which products should we reorder?')
    expect(out.finalOutput).toContain('checked 3 products')
    expect(out.finalOutput).toContain('total_reorder_units')
    expect(requests[0]!.tools).toEqual([expect.objectContaining({ type: 'function', name: 'program', strict: true })])
    expect(callers(rt.log.all()).every((c) => c.includes('"type":"program"'))).toBe(true)
  })
})

/**
 * The adapters against the real framework packages, beyond the README's happy path: registered tools called
 * directly (mode `both`), failures the model reads as errors, structured results for the app, abort, non-strict
 * schemas, and `only`.
 */
import { tool as langchainTool } from '@langchain/core/tools'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { aiSdkTools } from '../../adapters/ai-sdk.js'
import { langchainTools } from '../../adapters/langchain.js'
import { openaiAgentsTools } from '../../adapters/openai-agents.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { basicTools } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const stop = { unified: 'stop' as const, raw: undefined }
const toolCalls = { unified: 'tool-calls' as const, raw: undefined }

describe('AI SDK adapter', () => {
  it('offers run_code and the registered tools; the app gets structured results, the model reads content and errors', async () => {
    const rt = await testRuntime({ tools: basicTools })
    rt.hooks.on('pre-execute', (c) => (c.name === 'echo' ? { deny: { code: 'EPERM', message: 'echo is off' } } : undefined))
    const tools = aiSdkTools(rt)
    expect(Object.keys(tools).sort()).toEqual(['add', 'echo', 'read_note', 'run_code'])
    let seen: unknown
    let step = 0
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt, tools: offered }) => {
        if (step++ === 0) {
          expect(offered?.map((t) => t.name).sort()).toEqual(['add', 'echo', 'read_note', 'run_code'])
          return {
            content: [
              { type: 'tool-call', toolCallId: 'a1', toolName: 'add', input: '{"a":20,"b":22}' },
              { type: 'tool-call', toolCallId: 'e1', toolName: 'echo', input: '{}' },
              { type: 'tool-call', toolCallId: 'n1', toolName: 'read_note', input: '{"key":"missing"}' },
            ],
            finishReason: toolCalls,
            usage,
            warnings: [],
          }
        }
        seen = prompt.at(-1)
        return { content: [{ type: 'text', text: 'ok' }], finishReason: stop, usage, warnings: [] }
      },
    })
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) })
    expect(result.text).toBe('ok')
    const outputs = result.steps[0]!.toolResults.map((r) => r.output)
    expect(outputs).toEqual([
      expect.objectContaining({ ok: true, value: 42, content: '42' }),
      expect.objectContaining({ ok: false, code: 'EPERM', denied: true }),
      expect.objectContaining({ ok: false, code: 'ENOENT', denied: false }),
    ])
    expect(seen).toMatchObject({
      role: 'tool',
      content: [
        { toolCallId: 'a1', output: { type: 'text', value: '42' } },
        { toolCallId: 'e1', output: { type: 'error-text', value: 'Error (EPERM): echo is off' } },
        { toolCallId: 'n1', output: { type: 'error-text', value: 'Error (ENOENT): no note "missing"' } },
      ],
    })
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('passes the AI SDK abort signal down to the tool', async () => {
    let aborted = false
    const rt = await testRuntime({
      tools: [
        defineTool({
          name: 'wait',
          description: '',
          parameters: z.object({}),
          execute: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener('abort', () => r((aborted = true)))),
        }),
      ],
    })
    const controller = new AbortController()
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        setTimeout(() => controller.abort(), 50)
        return {
          content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'wait', input: '{}' }],
          finishReason: toolCalls,
          usage,
          warnings: [],
        }
      },
    })
    await generateText({ model, tools: aiSdkTools(rt, { only: ['wait'] }), prompt: 'go', abortSignal: controller.signal }).catch(
      () => undefined,
    )
    expect(aborted).toBe(true)
    const result = rt.log.all().find((e) => e.type === 'tool/result' && 'id' in e.data && e.data.id === 'w1')
    expect(result?.data).toMatchObject({ result: { ok: false, error: { code: 'ECANCELED' } } })
  })
})

describe('OpenAI Agents SDK adapter', () => {
  it('strict only where the schema allows; invoke answers content, a bad JSON input is EINVAL', async () => {
    const rt = await testRuntime({
      tools: [
        ...basicTools,
        {
          name: 'search',
          description: 'Search.',
          parameters: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'number' } }, required: ['q'] },
          execute: (a: { q: string }) => [a.q],
        },
      ],
    })
    const tools = openaiAgentsTools(rt)
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get('run_code')).toMatchObject({ strict: true, parameters: { additionalProperties: false, required: ['code'] } })
    expect(byName.get('search')).toMatchObject({ strict: false, parameters: { additionalProperties: true, required: ['q'] } })
    expect(await byName.get('search')!.invoke({}, '{"q":"x"}', { toolCall: { callId: 'ag1' } })).toBe('["x"]')
    expect(await byName.get('search')!.invoke({}, '{"q":')).toMatch(/^Error \(EINVAL\): search: arguments are not valid JSON/)
    expect(await byName.get('read_note')!.invoke({}, '{"key":"boom"}')).toBe('Error (ETOOL): the note store is down')
    expect(rt.log.all().some((e) => e.type === 'tool/call' && 'id' in e.data && e.data.id === 'ag1')).toBe(true)
  })
})

describe('LangChain adapter', () => {
  it("builds real tools from LangChain's own factory; `only` picks them; a tool call yields a ToolMessage", async () => {
    const rt = await testRuntime({ tools: basicTools })
    const tools = langchainTools(rt, langchainTool, { only: ['add', 'read_note'] })
    expect(tools.map((t) => t.name)).toEqual(['add', 'read_note'])
    const msg = await tools[1]!.invoke({ id: 'lc9', name: 'read_note', args: { key: 'k' }, type: 'tool_call' })
    expect(msg).toMatchObject({ tool_call_id: 'lc9', content: '{"key":"k","text":"note k"}' })
    expect(rt.log.all().some((e) => e.type === 'tool/call' && 'id' in e.data && e.data.id === 'lc9')).toBe(true)
  })
})

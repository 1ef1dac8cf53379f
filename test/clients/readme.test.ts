/**
 * The documentation's client sections are real code: each `<!-- snippet: NAME -->` block of README.md and
 * docs/ is extracted verbatim (test/docs/markdown.ts), type-checked under the project's strict options against
 * the real packages (imports of `codeact` resolve to this package's build), then imported and driven by the
 * package's own mock model or a local fake server.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { RunnableLambda } from '@langchain/core/runnables'
import { setDefaultOpenAIClient } from '@openai/agents'
import { MockLanguageModelV3 } from 'ai/test'
import OpenAI from 'openai'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import { extractSnippets, root } from '../docs/markdown.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'
import { PROGRAM, startFakeLlm, type FakeLlm } from './fake-llm.js'

const snippets = extractSnippets()
// Type-checked here; the scripts among them run in test/docs/scripts.test.ts (`docker-session` in
// test/docs/docker.test.ts), and `embedding`, which calls a public rates API, is only type-checked.
const load = (name: string) => import(snippets.get(name)!)

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: z.object({ city: z.string() }),
  output: z.object({ city: z.string(), tempC: z.number() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
})
const codeMode = () => testRuntime({ tools: [getWeather], mode: 'code' })

let llm: FakeLlm
beforeAll(async () => {
  llm = await startFakeLlm()
})
afterAll(() => llm.close())

describe('snippets of README.md and docs/', () => {
  it('are all there and type-check under --strict with no cast, as do the client tests (types.test-d.ts included)', () => {
    expect([...snippets.keys()].sort()).toEqual([
      'ai-sdk',
      'anthropic',
      'anthropic-tool-runner',
      'approvals',
      'call-tool',
      'callers',
      'collect-when-idle',
      'docker-session',
      'embedding',
      'event-log',
      'langchain',
      'minimal-anthropic',
      'minimal-docker',
      'minimal-openai',
      'openai-agents',
      'openai-chat',
      'openai-responses',
      'ptc-ai-sdk',
      'ptc-openai-agents',
      'ptc-program',
      'quickstart',
      'react-loop',
      'react-replay',
      'sessions',
      'share-spare',
      'state-dir',
      'store-replicas',
    ])
    const clientTests = readdirSync(import.meta.dirname)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(import.meta.dirname, f))
    const snippetFiles = [...snippets.values()]
    // No cast to make an SDK type fit: not in a snippet, not in the type tests.
    for (const file of [...snippetFiles, join(import.meta.dirname, 'types.test-d.ts')])
      expect(withoutImports(readFileSync(file, 'utf8'))).not.toMatch(/\bas (any|never|unknown)\b|<any>|\bas [A-Z]\w*(\[\])?\b/)
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    )!
    expect(config.options.strict).toBe(true)
    const program = ts.createProgram([...snippetFiles, ...clientTests], { ...config.options, noEmit: true })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && (d.file.fileName.includes('.snippets') || d.file.fileName.includes('test/clients/')))
      .map((d) => `${d.file!.fileName.split('/').pop()}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
    expect(problems).toEqual([])
  }, 180_000)

  it('OpenAI Chat: run_code as a freeform tool, answered as role:"tool" messages', async () => {
    const rt = await codeMode()
    const { chat } = await load('openai-chat')
    const answer = await chat(rt, new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'test' }), 'Weather in Paris?')
    expect(answer).toContain('Paris: 21 °C')
    const sent = llm.requests.filter((r) => r.path.endsWith('/chat/completions'))
    expect(sent[0]!.body.tools).toEqual([
      expect.objectContaining({ type: 'custom', custom: expect.objectContaining({ name: 'run_code' }) }),
    ])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('OpenAI Responses: output passed whole (reasoning item included), answered as custom_tool_call_output', async () => {
    const rt = await codeMode()
    const { respond } = await load('openai-responses')
    const answer = await respond(rt, new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'test' }), 'Weather in Paris?')
    expect(answer).toContain('Paris: 21 °C')
    const last = llm.requests.filter((r) => r.path.endsWith('/responses')).at(-1)!.body.input
    expect(last).toEqual([
      { type: 'custom_tool_call_output', call_id: expect.any(String), output: expect.stringContaining('Paris: 21 °C') },
    ])
  })

  it('Anthropic: message.content passed whole, tool_result blocks back', async () => {
    const rt = await codeMode()
    const { ask } = await load('anthropic')
    const answer = await ask(rt, new Anthropic({ baseURL: llm.url, apiKey: 'test' }), 'Weather in Paris?')
    expect(answer).toContain('Paris: 21 °C')
    const sent = llm.requests.filter((r) => r.path.endsWith('/messages')).at(-1)!.body
    expect(sent.tools).toEqual([
      expect.objectContaining({ name: 'run_code', input_schema: expect.objectContaining({ type: 'object', required: ['code'] }) }),
    ])
  })

  it("Anthropic tool runner: the definitions' Standard Schema and rt.callTool, with the runner's tool_use ids", async () => {
    const rt = await codeMode()
    const { runTools } = await load('anthropic-tool-runner')
    const before = llm.requests.length
    const answer = await runTools(rt, new Anthropic({ baseURL: llm.url, apiKey: 'test' }), 'Weather in Paris?')
    expect(answer).toContain('Paris: 21 °C')
    const first = llm.requests.slice(before)[0]!.body
    expect(first.tools).toEqual([
      expect.objectContaining({ name: 'run_code', input_schema: expect.objectContaining({ required: ['code'] }) }),
    ])
    const ids = rt.log.all().flatMap((e) => (e.type === 'tool/call' && 'origin' in e.data && e.data.origin === 'native' ? [e.data.id] : []))
    expect(ids.at(-1)).toMatch(/^toolu_/)
  })

  it('AI SDK: a multi-step generateText with MockLanguageModelV3, the model reading the observation', async () => {
    const rt = await codeMode()
    const { agent } = await load('ai-sdk')
    const prompts: unknown[] = []
    let step = 0
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        prompts.push(prompt)
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        }
        if (step++ === 0) {
          return {
            content: [{ type: 'tool-call', toolCallId: 'tc1', toolName: 'run_code', input: JSON.stringify({ code: PROGRAM }) }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          }
        }
        const toolMsg = JSON.stringify(prompt.at(-1))
        return {
          content: [{ type: 'text', text: `saw ${toolMsg}` }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }
      },
    })
    const text: string = await agent(rt, model, 'Weather in Paris?')
    expect(text).toContain('Paris: 21 °C')
    expect(step).toBe(2)
    expect(rt.log.all().some((e) => e.type === 'tool/call' && 'id' in e.data && e.data.id === 'tc1')).toBe(true)
  })

  it('OpenAI Agents SDK: Runner over the Responses API, strict run_code', async () => {
    const rt = await codeMode()
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'test' }))
    const { runAgent } = await load('openai-agents')
    const before = llm.requests.length
    const out = await runAgent(rt, 'Weather in Paris?')
    expect(out).toContain('Paris: 21 °C')
    const first = llm.requests.slice(before).find((r) => r.path.endsWith('/responses'))!.body
    expect(first.tools).toEqual([expect.objectContaining({ type: 'function', name: 'run_code', strict: true })])
  })

  it('LangChain: tools from its own factory, calls answered as ToolMessages', async () => {
    const rt = await codeMode()
    const { codeactTools, loop } = await load('langchain')
    const tools = codeactTools(rt)
    expect(tools.map((t: { name: string }) => t.name)).toEqual(['run_code'])
    const viaTool = await tools[0].invoke({ id: 'lc1', name: 'run_code', args: { code: PROGRAM }, type: 'tool_call' })
    expect(viaTool.content).toContain('Paris: 21 °C')
    // A scripted chat model as a LangChain Runnable: a tool call first, then it repeats the ToolMessage it got.
    let turn = 0
    const model = RunnableLambda.from(async (messages: BaseMessage[]) =>
      turn++ === 0
        ? new AIMessageChunk({ content: '', tool_calls: [{ id: 'lc2', name: 'run_code', args: { code: PROGRAM }, type: 'tool_call' }] })
        : new AIMessageChunk(
            `done: ${messages
              .filter(ToolMessage.isInstance)
              .map((m) => `${m.tool_call_id} ${m.status} ${m.text}`)
              .join(' | ')}`,
          ),
    )
    expect(await loop(rt, model, 'Weather in Paris?')).toMatch(/^done: lc2 success .*Paris: 21 °C/s)
    const result = rt.log.all().find((e) => e.type === 'tool/result' && 'id' in e.data && e.data.id === 'lc2')
    expect(result).toBeDefined()
  })

  it('event log: since, on, JSONL and replay', async () => {
    const file = join(mkdtemp(), 'log.jsonl')
    const rt = await testRuntime({ tools: [getWeather], logFile: file })
    rt.hooks.on('pre-execute', (c) => (c.name === 'get_weather' ? { deny: { code: 'EACCES', message: 'no weather today' } } : undefined))
    const { audit } = await load('event-log')
    const out: string[] = await audit(rt, file)
    expect(out[0]).toBe('1 call(s)')
    expect(out.at(-1)).toContain('Denied (1):')
    expect(out.at(-1)).toContain('EACCES: no weather today')
  })

  it('callTool: the structured result', async () => {
    const rt = await testRuntime({ workspace: { root: mkdtemp(), readOnly: [] } })
    const { readNotes } = await load('call-tool')
    expect(await readNotes(rt, new AbortController().signal)).toMatch(/^Error \(ENOENT\)/)
    rt.hooks.on('pre-execute', (c) => (c.name === 'read_file' ? { deny: { code: 'EACCES', message: 'notes are private' } } : undefined))
    expect(await readNotes(rt, new AbortController().signal)).toBe('refused with EACCES')
  })
})

function mkdtemp(): string {
  return mkdtempSync(join(tmpdir(), 'codeact-readme-'))
}

/** The text without its import statements (`import { X as Y }` renames are not casts). */
function withoutImports(text: string): string {
  return text.replace(/^import [^;]*?from '[^']+'$/gms, '')
}

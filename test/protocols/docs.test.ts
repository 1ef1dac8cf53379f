/**
 * docs/protocols.md's snippets, extracted as written (test/docs/markdown.ts; type-checked under --strict in
 * test/clients/readme.test.ts) and driven here: the ReAct loop by a scripted text-only model, the replay from
 * a real log file, the PTC script as a process of its own, the two `program` tool apps by the real SDKs.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Usage, type Model, type ModelResponse } from '@openai/agents'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import { extractSnippets, root } from '../docs/markdown.js'
import { testRuntime } from '../support/runtime.js'

const snippets = extractSnippets()
const load = (name: string) => import(snippets.get(name)!)

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: z.object({ city: z.string() }),
  output: z.object({ city: z.string(), tempC: z.number() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
})

/** A text-only model: acts until it has seen an observation, then finishes with what it saw. */
function scriptedModel(seen: string[]) {
  return async (transcript: string) => {
    seen.push(transcript)
    const observed = /\nObservation: (.*)\n$/.exec(transcript)?.[1]
    return observed
      ? `Thought: I know the answer\nFinish[${observed}]`
      : 'Thought: I need the weather in Paris.\nAction: get_weather[Paris]'
  }
}

describe('docs/protocols.md', () => {
  it('react-loop: the loop runs a text-only model to its Finish, the prompt and each observation in the transcript', async () => {
    const rt = await testRuntime({ tools: [getWeather] })
    const { reactLoop } = await load('react-loop')
    const seen: string[] = []
    expect(await reactLoop(rt, scriptedModel(seen), 'Weather in Paris?')).toBe('{"city":"Paris","tempC":21}')
    expect(seen[0]).toContain('- get_weather[…]: Current weather of a city. Input: {"city": string}')
    expect(seen[1]).toMatch(
      /Task: Weather in Paris\?\nThought: I need the weather in Paris\.\nAction: get_weather\[Paris\]\nObservation: \{"city":"Paris","tempC":21\}\n$/,
    )
  })

  it('react-replay: the transcript comes back byte for byte from the JSONL log file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codeact-react-'))
    const logFile = join(dir, 'log.jsonl')
    const rt = await testRuntime({ tools: [getWeather], logFile, stateDir: join(dir, 'state') })
    const turns = ['Thought: look\nAction: get_weather[Paris]\nAction: get_weather[{"town": "Rome"}]', 'Thought: done\nFinish[21 °C]']
    const live: string[] = []
    for (const text of turns) {
      const { observation, final } = await rt.executeText(text)
      live.push(final !== undefined ? text : `${text}\n${observation}`)
    }
    const { transcriptOf } = await load('react-replay')
    expect(transcriptOf(readFileSync(logFile, 'utf8'))).toBe(live.join('\n'))
    expect(live[0]).toContain('Observation 2: Error (EINVAL): get_weather: ')
  })

  it('ptc-program: the script prints completed, the text() line and the value, and program callers', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), snippets.get('ptc-program')!], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(r.status, r.stderr).toBe(0)
    const [status, text, value, callers] = r.stdout.trim().split('\n')
    expect([status, text, value]).toEqual(['completed', 'alpha 7, beta 11', '{"total":18}'])
    expect(JSON.parse(callers!)).toEqual([
      { type: 'program', caller_id: expect.stringMatching(/^run_/) },
      { type: 'program', caller_id: expect.stringMatching(/^run_/) },
    ])
  })

  it('ptc-ai-sdk: generateText with MockLanguageModelV3 calls `program` and reads its result', async () => {
    const rt = await testRuntime({ tools: [getWeather] })
    const { plan } = await load('ptc-ai-sdk')
    let step = 0
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) =>
        step++ === 0
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'p1',
                  toolName: 'program',
                  input: JSON.stringify({ code: 'text((await get_weather("Paris")).tempC)' }),
                },
              ],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: `saw ${JSON.stringify(prompt.at(-1))}` }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            },
    })
    expect(await plan(rt, model, 'Weather in Paris?')).toMatch(/^saw .*"value":"21"/)
  })

  it('ptc-openai-agents: the Agents SDK runs `program` and the model reads its result', async () => {
    const rt = await testRuntime({ tools: [getWeather] })
    const { plan } = await load('ptc-openai-agents')
    const model: Model = {
      async getResponse(request): Promise<ModelResponse> {
        const input = Array.isArray(request.input) ? request.input : []
        const done = input.find((i) => i.type === 'function_call_result')
        return {
          usage: new Usage(),
          output:
            done && done.type === 'function_call_result'
              ? [
                  {
                    type: 'message',
                    role: 'assistant',
                    status: 'completed',
                    content: [{ type: 'output_text', text: `saw ${JSON.stringify(done.output)}` }],
                  },
                ]
              : [
                  {
                    type: 'function_call',
                    callId: 'p1',
                    name: 'program',
                    status: 'completed',
                    arguments: JSON.stringify({ code: 'return await get_weather({ city: "Oslo" })' }),
                  },
                ],
        }
      },
      getStreamedResponse() {
        throw new Error('not streamed here')
      },
    }
    expect(await plan(rt, model, 'Weather in Oslo?')).toContain('{\\"city\\":\\"Oslo\\",\\"tempC\\":21}')
  })
})

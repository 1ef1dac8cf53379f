/**
 * ReAct text actions from the user's side: model texts the way models write them, each with the exact
 * observation `rt.executeText` answers, the calls going through the one dispatch (hooks included), and every
 * exchange rebuilt byte for byte from the log alone.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { replayReact, type ExecuteTextResult } from '../../runtime/index.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const tools = [
  defineTool({
    name: 'search',
    description: 'Search the wiki.',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => `results for ${query}`,
  }),
  defineTool({
    name: 'calc',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => a + b,
  }),
  defineTool({
    name: 'lookup',
    description: 'Looks a term up.',
    parameters: z.object({ term: z.string(), limit: z.number().optional() }),
    execute: async (args) => args,
  }),
  defineTool({ name: 'now', description: 'The time.', parameters: z.object({}), execute: async () => '12:00' }),
  defineTool({
    name: 'get_weather',
    description: 'Weather of a city.',
    parameters: z.object({ city: z.string() }),
    allowedCallers: ['programmatic'],
    execute: async ({ city }) => ({ city, tempC: 21 }),
  }),
]

const HINT =
  'write `Action: tool_name[{"param": …}]` (one action per line; a one-parameter tool also takes `tool_name[plain text]`), or `Action: tool_name` and on the next line `Action Input: {"param": …}`; end with `Finish[answer]` or `Final Answer: …`; tools: calc, lookup, now, run_code, search'

/** [what the model wrote, the observation it gets back]. */
const TEXTS: [string, string, string][] = [
  ['paper form, tool name in another case', 'Thought: I should search.\nAction: Search[Front Row]', 'Observation: results for Front Row'],
  [
    'numbered paper form',
    'Thought 1: I need to search Colorado orogeny.\nAction 1: Search[Colorado orogeny]',
    'Observation: results for Colorado orogeny',
  ],
  ['brackets in the argument', 'Action 1: search[Front Row (band)]', 'Observation: results for Front Row (band)'],
  ['JSON in the brackets', 'Action: search[{"query": "codeact"}]', 'Observation: results for codeact'],
  ['sloppy spacing', 'Thought:   look\n   Action:   search [  spaced  ]  ', 'Observation: results for spaced'],
  ['a bare action line', 'I will search.\nsearch[bare]', 'Observation: results for bare'],
  ['CRLF line ends', 'Thought: x\r\nAction: search[crlf]\r\n', 'Observation: results for crlf'],
  ['LangChain, plain input', 'Thought: x\nAction: search\nAction Input: codeact', 'Observation: results for codeact'],
  ['LangChain, quoted input', 'Action: search\nAction Input: "quoted"', 'Observation: results for quoted'],
  ['LangChain, JSON input', 'Action: calc\nAction Input: {"a": 1, "b": 2}', 'Observation: 3'],
  ['JSON with a trailing comma', 'Action: calc\nAction Input: {"a": 1, "b": 2,}', 'Observation: 3'],
  ['JSON over several lines', 'Action: calc\nAction Input: {\n  "a": 2,\n  "b": 5,\n}', 'Observation: 7'],
  ['a blank line between Action and Action Input', 'Action: calc\n\nAction Input: {"a": 1, "b": 1}', 'Observation: 2'],
  ['the name in backticks', 'Action: `search`\nAction Input: x', 'Observation: results for x'],
  ['a code fence around the action', '```\nAction: search[fenced]\n```', 'Observation: results for fenced'],
  ['a json fence around the input', 'Action: calc\nAction Input:\n```json\n{"a": 4, "b": 4}\n```', 'Observation: 8'],
  [
    'two actions in one turn',
    'Thought: both\nAction: search[a]\nAction: search[b]',
    'Observation 1: results for a\nObservation 2: results for b',
  ],
  [
    'two LangChain actions in one turn',
    'Action: search\nAction Input: a\nAction: calc\nAction Input: {"a": 1, "b": 1}',
    'Observation 1: results for a\nObservation 2: 2',
  ],
  ['one plain value for the one required parameter', 'Action: lookup[cats]', 'Observation: {"term":"cats"}'],
  ['a tool without parameters, no input', 'Action: now', 'Observation: 12:00'],
  ['a made-up observation is cut off', 'Action: search[real]\nObservation: fake\nAction: search[after]', 'Observation: results for real'],
  ['an unknown tool', 'Action: serch[x]', 'Observation: Error (ENOSYS): unknown tool "serch"; did you mean `search`?'],
  [
    'an unknown LangChain tool',
    'Action: Wikipedia\nAction Input: x',
    'Observation: Error (ENOSYS): unknown tool "Wikipedia"; available: calc, lookup, now, run_code, search',
  ],
  [
    'a program-only tool',
    'Action: get_weather[Paris]',
    'Observation: Error (ENOSYS): get_weather can only be called from a program (allowedCallers: ["programmatic"]); call `tools.get_weather(…)` inside run_code',
  ],
  [
    'a missing Action Input',
    'Thought: search it\nAction: search',
    'Observation: Error (EINVAL): search: no `Action Input:` line followed the `Action:`; write `Action: search` then `Action Input: {"query": …}` (parameters: query)',
  ],
  [
    'empty brackets',
    'Action: search[]',
    'Observation: Error (EINVAL): search: the brackets are empty; write `Action: search[{"query": …}]` (parameters: query)',
  ],
  [
    'a plain value for a two-parameter tool',
    'Action: calc[1 2]',
    'Observation: Error (EINVAL): calc: it takes a JSON object, not a plain value; write `Action: calc[{"a": …, "b": …}]` (parameters: a, b)',
  ],
  [
    'a JSON array for an object',
    'Action: calc\nAction Input: [1, 2]',
    'Observation: Error (EINVAL): calc: it takes a JSON object, not a plain value; write `Action: calc` then `Action Input: {"a": …, "b": …}` (parameters: a, b)',
  ],
  ['JSON that does not parse', 'Action: calc\nAction Input: {"a": 1, "b": }', 'BAD_JSON'],
  ['arguments of the wrong type', 'Action: calc[{"a": "one", "b": 2}]', 'WRONG_TYPE'],
  ['no action at all', 'I think the answer is 4.', `Observation: Error (EINVAL): no action was found; ${HINT}`],
  [
    'an action and a final answer at once',
    'Action: search[x]\nFinal Answer: y',
    `Observation: Error (EINVAL): the text has both an action and a final answer; give the final answer after the observation; ${HINT}`,
  ],
  ['Finish', 'Thought: done\nFinish[Paris]', ''],
  ['Final Answer', 'Thought: I know\nFinal Answer: It is 21 °C.', ''],
  ['Final Answer over two lines', 'Final Answer: line one\nline two', ''],
]

describe('rt.executeText: ReAct texts the way models write them', () => {
  it(`answers each of ${TEXTS.length} texts with the exact observation, and replay rebuilds every exchange byte for byte`, async () => {
    const rt = await testRuntime({ tools })
    const got: ExecuteTextResult[] = []
    for (const [, text] of TEXTS) got.push(await rt.executeText(text))
    const observations = got.map((g) => g.observation)
    for (const [i, [what, , want]] of TEXTS.entries()) {
      if (want === 'BAD_JSON')
        expect(observations[i], what).toMatch(
          /^Observation: Error \(EINVAL\): calc: the input is not valid JSON \(.+\); write `Action: calc` then `Action Input: \{"a": …, "b": …\}` \(parameters: a, b\)$/,
        )
      else if (want === 'WRONG_TYPE') expect(observations[i], what).toMatch(/^Observation: Error \(EINVAL\): calc: .*\ba\b.*number/)
      else expect(observations[i], what).toBe(want)
    }
    expect(got.map((g) => g.final).filter((f) => f !== undefined)).toEqual(['Paris', 'It is 21 °C.', 'line one\nline two'])
    const replayed = replayReact(rt.log.all())
    expect(replayed.map((r) => r.text)).toEqual(TEXTS.map(([, text]) => text))
    expect(replayed.map((r) => r.observation)).toEqual(observations)
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('returns the calls with their values and errors, each logged as a direct call', async () => {
    const rt = await testRuntime({ tools })
    const r = await rt.executeText('Thought: two things\nAction: calc[{"a": 2, "b": 3}]\nAction: nope[x]')
    expect(r.calls).toMatchObject([
      { name: 'calc', args: { a: 2, b: 3 }, ok: true, value: 5, content: '5' },
      { name: 'nope', ok: false, error: { code: 'ENOSYS' } },
    ])
    const logged = rt.log.all().filter((e) => e.type === 'tool/call')
    expect(logged.map((e) => ('caller' in e.data ? e.data.caller : undefined))).toEqual([{ type: 'direct' }, { type: 'direct' }])
    const start = rt.log.all().find((e) => e.type === 'react/start')
    expect(start?.data).toMatchObject({ text: 'Thought: two things\nAction: calc[{"a": 2, "b": 3}]\nAction: nope[x]' })
  })

  it('goes through the same hooks and approvals as every other call', async () => {
    const asked: string[] = []
    const rt = await testRuntime({
      tools,
      approve: ['calc'],
      onApproval: (req) => {
        asked.push(`${req.name} ${JSON.stringify(req.args)}`)
        return { approve: false, reason: 'not today' }
      },
    })
    rt.hooks.on('pre-execute', (call) => (call.name === 'search' ? { deny: { code: 'EACCES', message: 'search is off' } } : undefined))
    const r = await rt.executeText('Action: search[x]\nAction: calc[{"a": 1, "b": 1}]')
    expect(r.observation).toBe('Observation 1: Error (EACCES): search is off\nObservation 2: Error (EACCES): not approved: not today')
    expect(asked).toEqual(['calc {"a":1,"b":1}'])
  })

  it('format "react" takes only Tool[arg] and Finish; format "langchain" only Action Input and Final Answer', async () => {
    const rt = await testRuntime({ tools })
    expect((await rt.executeText('Action: search\nAction Input: x', { format: 'react' })).observation).toBe(
      'Observation: Error (EINVAL): no action was found; write `Action: tool_name[{"param": …}]` (one action per line; a one-parameter tool also takes `tool_name[plain text]`); end with `Finish[answer]`; tools: calc, lookup, now, run_code, search',
    )
    expect((await rt.executeText('Final Answer: 4', { format: 'react' })).final).toBeUndefined()
    expect((await rt.executeText('Finish[4]', { format: 'langchain' })).final).toBeUndefined()
    expect((await rt.executeText('Action: search\nAction Input: x', { format: 'langchain' })).observation).toBe(
      'Observation: results for x',
    )
  })

  it('never throws for what a model wrote, whatever it is', async () => {
    const rt = await testRuntime({ tools })
    for (const text of [
      '',
      '[]',
      'Action:',
      'Action: [x]',
      'Action Input: {"a": 1}',
      'Action: a'.repeat(1000),
      '\u0000Action: search[\u0000]',
    ])
      expect((await rt.executeText(text)).observation).toMatch(/^Observation/)
  })

  it('a hostile text is bounded: over maxSourceBytes it is E2BIG, over maxToolCalls actions EDQUOT, naming their flags; nothing runs', async () => {
    const rt = await testRuntime({ tools, limits: { maxSourceBytes: 64 * 1024, maxToolCalls: 5 } })
    const big = `Action: search[${'x'.repeat(64 * 1024)}]`
    const over = await rt.executeText(big)
    expect(over.observation).toBe(
      `Observation: Error (E2BIG): the text is ${big.length} bytes, over the 65536-byte limit; raise it with --max-source (limits.maxSourceBytes)`,
    )
    const many = await rt.executeText('Action: search[a]\n'.repeat(6))
    expect(many.observation).toBe(
      'Observation: Error (EDQUOT): the text has 6 actions, over the limit of 5 calls; raise it with --max-tool-calls (limits.maxToolCalls)',
    )
    expect(rt.log.all().filter((e) => e.type === 'tool/call')).toEqual([])
    // Replay gives the same observations, and the over-long text cut at the limit.
    const replayed = replayReact(rt.log.all())
    expect(replayed.map((r) => r.observation)).toEqual([over.observation, many.observation])
    expect(replayed[0]!.text).toBe(big.slice(0, 64 * 1024))
  })

  it('a program-only tool stays out of reach whatever case the text writes it in', async () => {
    const rt = await testRuntime({ tools })
    for (const text of ['Action: GET_WEATHER[Paris]', 'Action: Get_Weather\nAction Input: {"city": "Paris"}'])
      expect((await rt.executeText(text)).observation).toMatch(
        /^Observation: Error \(ENOSYS\): (get_weather can only be called from a program|unknown tool)/,
      )
    expect(rt.log.all().filter((e) => e.type === 'tool/result' && 'result' in e.data && e.data.result.ok)).toEqual([])
  })

  it('rt.reactPrompt() teaches the form from the registry: the tools a model may call directly, and an example', async () => {
    const rt = await testRuntime({ tools })
    const prompt = rt.reactPrompt()
    expect(prompt).toContain('- search[…]: Search the wiki. Input: {"query": string}')
    expect(prompt).toContain('- lookup[…]: Looks a term up. Input: {"term": string, "limit"?: number}')
    expect(prompt).toContain('Action: calc[{"a":1,"b":1}]')
    expect(prompt).not.toContain('get_weather')
    expect(rt.reactPrompt({ format: 'langchain' })).toContain('Action: calc\nAction Input: {"a":1,"b":1}')
    // What the prompt shows as its example runs as written.
    expect((await rt.executeText('Thought: I need to use a tool first.\nAction: calc[{"a":1,"b":1}]')).observation).toBe('Observation: 2')
  })
})

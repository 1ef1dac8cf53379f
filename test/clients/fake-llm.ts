/**
 * A local fake of the OpenAI (Chat Completions, Responses) and Anthropic (Messages) HTTP APIs on 127.0.0.1,
 * so the official SDK clients talk real HTTP to a scripted model. The model: while the conversation has no
 * tool result yet, it calls `run_code` (as a custom tool when offered so, else a function) with PROGRAM, or
 * `get_weather` when `run_code` is not offered; once it sees a tool result it answers `Answer: <result>`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export const PROGRAM = "const w = await tools.get_weather({ city: 'Paris' })\nreturn `${w.city}: ${w.tempC} °C`"

type Json = Record<string, unknown>
export interface FakeLlm {
  url: string
  /** Every request body, in order, by path. */
  requests: { path: string; body: Json }[]
  close(): Promise<void>
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: FakeLlm['requests'] = []
  let n = 0
  const server: Server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Json
    const path = (req.url ?? '').replace(/\?.*$/, '')
    requests.push({ path, body })
    const id = `x${++n}`
    const reply = path.endsWith('/chat/completions')
      ? chat(body, id)
      : path.endsWith('/responses')
        ? responses(body, id)
        : path.endsWith('/messages')
          ? anthropic(body, id)
          : undefined
    res.writeHead(reply ? 200 : 404, { 'content-type': 'application/json' })
    res.end(JSON.stringify(reply ?? { error: { message: `no route ${path}` } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => resolve(text))
  })
}

type ToolChoice = { name: 'run_code' | 'get_weather'; custom: boolean }
function chooseTool(tools: Json[]): ToolChoice {
  const named = (t: Json) =>
    (t.name ?? (t.function as Json | undefined)?.name ?? (t.custom as Json | undefined)?.name) as string | undefined
  const runCode = tools.find((t) => named(t) === 'run_code')
  if (runCode) return { name: 'run_code', custom: runCode.type === 'custom' }
  return { name: 'get_weather', custom: false }
}
const argsFor = (c: ToolChoice) => (c.name === 'run_code' ? { code: PROGRAM } : { city: 'Paris' })

function chat(body: Json, id: string): Json {
  const messages = body.messages as Json[]
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.content)
  const base = {
    id,
    object: 'chat.completion',
    created: 1,
    model: String(body.model),
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }
  if (results.length) {
    return {
      ...base,
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', content: `Answer: ${results.join(' | ')}`, refusal: null },
        },
      ],
    }
  }
  const c = chooseTool((body.tools as Json[]) ?? [])
  const call = c.custom
    ? { id: `call_${id}`, type: 'custom', custom: { name: c.name, input: PROGRAM } }
    : { id: `call_${id}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(argsFor(c)) } }
  return {
    ...base,
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        logprobs: null,
        message: { role: 'assistant', content: null, refusal: null, tool_calls: [call] },
      },
    ],
  }
}

function responses(body: Json, id: string): Json {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : []
  const results = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => i.output)
  const usage = {
    input_tokens: 1,
    output_tokens: 1,
    total_tokens: 2,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  }
  const base = {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1,
    model: String(body.model),
    status: 'completed',
    usage,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
  }
  if (results.length) {
    return {
      ...base,
      output: [
        {
          type: 'message',
          id: `msg_${id}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: `Answer: ${results.join(' | ')}`, annotations: [] }],
        },
      ],
    }
  }
  const c = chooseTool((body.tools as Json[]) ?? [])
  const call = c.custom
    ? { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_${id}`, name: c.name, input: PROGRAM }
    : {
        type: 'function_call',
        id: `fc_${id}`,
        call_id: `call_${id}`,
        name: c.name,
        arguments: JSON.stringify(argsFor(c)),
        status: 'completed',
      }
  return { ...base, output: [{ type: 'reasoning', id: `rs_${id}`, summary: [] }, call] }
}

function anthropic(body: Json, id: string): Json {
  const messages = body.messages as Json[]
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).filter((b) => b.type === 'tool_result')
  const base = {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model),
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }
  if (results.length) {
    const text = results.map((r) => (typeof r.content === 'string' ? r.content : JSON.stringify(r.content))).join(' | ')
    return { ...base, stop_reason: 'end_turn', content: [{ type: 'text', text: `Answer: ${text}` }] }
  }
  const c = chooseTool((body.tools as Json[]) ?? [])
  return {
    ...base,
    stop_reason: 'tool_use',
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: `toolu_${id}`, name: c.name, input: argsFor(c) },
    ],
  }
}

/**
 * The native path takes every SDK's own values — typed with the SDK's own types, no cast — and answers each
 * element in its own shape. One element it cannot run gets an error answer of its own; no batch is dropped.
 */
import type { ContentBlock } from '@anthropic-ai/sdk/resources/messages'
import type { AIMessage } from '@langchain/core/messages'
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions'
import type { ResponseOutputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { replayObservations } from '../../runtime/replay.js'
import { basicTools } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

describe('executeToolCalls: every SDK shape', () => {
  it('OpenAI Chat: function and custom calls in one message; a custom run_code call runs its text as the program', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const toolCalls: ChatCompletionMessageToolCall[] = [
      { id: 'f1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":2}' } },
      {
        id: 'c1',
        type: 'custom',
        custom: { name: 'run_code', input: 'const s = "quoted \\"text\\""\nreturn { s, n: await tools.add({ a: 40, b: 2 }) }' },
      },
      { id: 'c2', type: 'custom', custom: { name: 'read_note', input: '{"key":"k"}' } },
      { id: 'c3', type: 'custom', custom: { name: 'read_note', input: 'key is k' } },
    ]
    const out = await rt.executeToolCalls(toolCalls)
    expect(out.map((a) => a.tool_call_id)).toEqual(['f1', 'c1', 'c2', 'c3'])
    expect(out[0]!.content).toBe('3')
    expect(out[1]!.content).toContain('"n":42')
    expect(out[1]!.content).toContain('quoted \\"text\\"')
    expect(out[2]!.content).toBe('{"key":"k","text":"note k"}')
    expect(out[3]!.content).toMatch(/^Error \(EINVAL\): read_note: arguments are not valid JSON/)
  })

  it('OpenAI Responses: response.output passed whole; reasoning and messages passed over; answers are output items', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const output: ResponseOutputItem[] = [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'message',
        id: 'm1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Let me add.', annotations: [] }],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}', status: 'completed' },
      { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'run_code', input: 'return 7' },
      { type: 'function_call', id: 'fc_2', call_id: 'call_3', name: 'read_note', arguments: '{"key":"missing"}' },
    ]
    const out = await rt.executeToolCalls(output)
    expect([...out]).toEqual([
      { type: 'function_call_output', call_id: 'call_1', output: '5' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Return value:\n7' },
      { type: 'function_call_output', call_id: 'call_3', output: 'Error (ENOENT): no note "missing"' },
    ])
  })

  it('Anthropic: message.content passed whole; text and thinking blocks passed over', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const content: ContentBlock[] = [
      { type: 'thinking', thinking: 'add them', signature: 'sig' },
      { type: 'text', text: 'Adding.', citations: null },
      { type: 'tool_use', id: 't1', name: 'add', input: { a: 1, b: 1 }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 't2', name: 'nope', input: {}, caller: { type: 'direct' } },
    ]
    const out = await rt.executeToolCalls(content)
    expect([...out]).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '2', is_error: false },
      { type: 'tool_result', tool_use_id: 't2', content: expect.stringMatching(/^Error \(ENOSYS\): unknown tool "nope"/), is_error: true },
    ])
  })

  it('LangChain: AIMessage.tool_calls, answered as ToolMessage fields', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const toolCalls: NonNullable<AIMessage['tool_calls']> = [
      { id: 'l1', name: 'add', args: { a: 4, b: 5 }, type: 'tool_call' },
      { name: 'read_note', args: { key: 'boom' } },
    ]
    const out = await rt.executeToolCalls(toolCalls)
    expect([...out]).toEqual([
      { role: 'tool', tool_call_id: 'l1', name: 'add', content: '9', status: 'success' },
      { role: 'tool', tool_call_id: 'lc_1', name: 'read_note', content: 'Error (ETOOL): the note store is down', status: 'error' },
    ])
  })

  it('a message without tool calls is an empty batch', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const none: ChatCompletionMessageToolCall[] | undefined = undefined
    const out = await rt.executeToolCalls(none)
    expect([...out]).toEqual([])
    expect(out.concludesTurn).toBe(false)
  })

  it('broken elements each get an error answer; the rest of the batch still runs; every call has one result', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const junk: unknown[] = [
      { type: 'function_call', call_id: 'r1', name: 'add', arguments: '{"a":1,"b":1}' },
      { type: 'function_call', call_id: 'r2' },
      null,
      { type: 'tool_use', id: 't9' },
      { type: 'function_call', call_id: 'r3', name: 'add', arguments: { a: 1 } },
      { type: 'output_text', text: 'not a call' },
    ]
    // Untyped input (parsed from elsewhere): the one place a caller has nothing better than unknown.
    const out = await rt.executeToolCalls(junk as { type: string }[])
    expect([...out]).toEqual([
      { type: 'function_call_output', call_id: 'r1', output: '2' },
      { type: 'function_call_output', call_id: 'r2', output: expect.stringMatching(/^Error \(EINVAL\): not a tool call codeact can run/) },
      {
        type: 'function_call_output',
        call_id: '#2',
        output: expect.stringMatching(/^Error \(EINVAL\): not a tool call codeact can run: null/),
      },
      { type: 'tool_result', tool_use_id: 't9', content: expect.stringMatching(/^Error \(EINVAL\)/), is_error: true },
      { type: 'function_call_output', call_id: 'r3', output: 'Error (EINVAL): add: arguments must be a string' },
    ])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
    // Replay rebuilds these answers' contents from the log alone.
    const replayed = replayObservations(rt.log.all()).map((o) => o.content)
    expect(replayed).toEqual(out.map((a) => ('output' in a ? a.output : a.content)))
  })

  it('answers are compact JSON, not pretty-printed', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const out = await rt.executeToolCalls([{ type: 'tool_use', id: 'e', name: 'echo', input: { deep: { list: [1, 2, { x: 'y' }] } } }])
    expect(out[0]!.content).toBe('{"deep":{"list":[1,2,{"x":"y"}]}}')
  })
})

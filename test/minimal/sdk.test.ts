/**
 * docs/minimal-mode.md's snippets driven by the real vendor SDKs over their own `fetch` option (a fake
 * transport answering as the API would): Anthropic's tool runner with its bash and text-editor tool types,
 * and the OpenAI Responses loop with `shell_call` / `apply_patch_call` items.
 */
import { readFileSync } from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { replayObservations } from '../../runtime/replay.js'
import { extractSnippets } from '../docs/markdown.js'
import { minimalRuntime } from './support.js'

const snippets = extractSnippets()
const load = (name: string) => import(snippets.get(name)!)

/** A fetch that answers each request with the next body, and keeps what was sent. */
function scripted(bodies: object[]) {
  const sent: Array<Record<string, unknown>> = []
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push(JSON.parse(String(init?.body ?? '{}')))
    return new Response(JSON.stringify(bodies.shift()), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, sent }
}

const message = (content: object[], stop: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
})

describe('Minimal mode with the vendor SDKs', () => {
  it("Anthropic's tool runner drives bash and str_replace_based_edit_tool; the log replays its answers", async () => {
    const { rt, root } = await minimalRuntime()
    const { solve } = await load('minimal-anthropic')
    const t = scripted([
      message(
        [
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'mkdir -p app && cd app && export N=7' } },
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'str_replace_based_edit_tool',
            input: { command: 'create', path: `${root}/app/n.txt`, file_text: 'n=0\n' },
          },
        ],
        'tool_use',
      ),
      message(
        [{ type: 'tool_use', id: 'toolu_3', name: 'bash', input: { command: 'sed -i "s/0/$N/" n.txt && cat n.txt && pwd' } }],
        'tool_use',
      ),
      message([{ type: 'text', text: 'done' }], 'end_turn'),
    ])
    const answer = await solve(rt, new Anthropic({ apiKey: 'test', fetch: t.fetch }), 'set n')
    expect(answer).toBe('done')
    expect(readFileSync(`${root}/app/n.txt`, 'utf8')).toBe('n=7\n')
    expect(t.sent[0]!.tools).toEqual([
      { type: 'bash_20250124', name: 'bash' },
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
    ])
    const results = (t.sent[2]!.messages as Array<{ content: unknown }>).at(-1)!.content
    expect(results).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_3', content: `n=7\n${root}/app\n` })])
    // The runner runs one turn's tools side by side: each call's answer, by its tool_use id.
    const replayed = Object.fromEntries(replayObservations(rt.log.all()).map((o) => [o.id, o.content]))
    expect(replayed).toEqual({ toolu_1: '', toolu_2: `File created successfully at: ${root}/app/n.txt`, toolu_3: `n=7\n${root}/app\n` })
  })

  it('the OpenAI Responses loop answers shell_call and apply_patch_call items', async () => {
    const { rt, root } = await minimalRuntime({ minimal: 'openai' })
    const { solve } = await load('minimal-openai')
    const t = scripted([
      {
        id: 'resp_1',
        object: 'response',
        output: [
          {
            type: 'apply_patch_call',
            id: 'apc_1',
            call_id: 'call_p',
            status: 'completed',
            operation: { type: 'create_file', path: 'hello.txt', diff: '+hello\n' },
          },
          {
            type: 'shell_call',
            id: 'sc_1',
            call_id: 'call_s',
            status: 'completed',
            action: { commands: ['cat hello.txt', 'cd /tmp'], timeout_ms: null, max_output_length: null },
          },
        ],
      },
      {
        id: 'resp_2',
        object: 'response',
        output: [
          {
            type: 'message',
            id: 'm',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'ok', annotations: [] }],
          },
        ],
      },
    ])
    const answer = await solve(rt, new OpenAI({ apiKey: 'test', fetch: t.fetch }), 'say hello')
    expect(answer).toBe('ok')
    expect(readFileSync(`${root}/hello.txt`, 'utf8')).toBe('hello\n')
    expect(t.sent[1]!.input).toEqual([
      {
        type: 'apply_patch_call_output',
        call_id: 'call_p',
        status: 'completed',
        output: 'Success. Updated the following files:\nA hello.txt\n',
      },
      {
        type: 'shell_call_output',
        call_id: 'call_s',
        max_output_length: null,
        output: [
          { stdout: 'hello\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        ],
      },
    ])
  })
})

/**
 * A full agent loop against a scripted model (no network): assistant message -> executeToolCalls -> tool
 * messages -> next request. Swap `scriptedModel` for a real client (OpenAI's `chat.completions.create`
 * with `tools: toOpenAITools(rt.tools.definitions())`) and nothing else changes.
 *
 *   node scripts/run-ts.mjs examples/agent-loop.ts
 */
import { createRuntime, toOpenAITools } from 'codeact'
import tools from './tools.js'

type Message =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant'
      content: string | null
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
    }
  | { role: 'tool'; tool_call_id: string; content: string }

/** Stands in for a model: answers each request with the next scripted assistant message. */
function scriptedModel(): (messages: Message[], toolsField: unknown) => Message {
  const program = `
    const shops = await tools.list_shops({})
    const quotes = await Promise.all(shops.map(({ shop }) => tools.lookup_price({ shop, product: 'phone' })))
    return quotes.map((q) => \`\${q.shop}: \${q.net} \${q.currency}\`)`
  const script: Message[] = [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run_code', arguments: JSON.stringify({ code: program }) } }],
    },
    { role: 'assistant', content: 'Tokyo is cheapest for phones once converted; see the quotes above.' },
  ]
  let turn = 0
  return () => script[turn++] ?? { role: 'assistant', content: '(done)' }
}

export async function agentLoop(userMessage: string): Promise<Message[]> {
  const rt = await createRuntime({ tools, mode: 'code' })
  const model = scriptedModel()
  const messages: Message[] = [{ role: 'user', content: userMessage }]
  try {
    for (let step = 0; step < 8; step++) {
      const reply = model(messages, toOpenAITools(rt.tools.definitions()))
      messages.push(reply)
      if (reply.role !== 'assistant' || !reply.tool_calls?.length) break
      const answers = await rt.executeToolCalls(reply.tool_calls)
      messages.push(...answers)
      if (answers.concludesTurn) break
    }
    return messages
  } finally {
    await rt.close()
  }
}

if (process.argv[1]?.includes('agent-loop')) {
  for (const m of await agentLoop('Where is a phone cheapest?')) console.log(`[${m.role}]`, 'content' in m ? m.content : '')
}

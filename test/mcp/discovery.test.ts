/** A large registry exported over MCP: a short index plus search_tools / describe_tool instead of 500 declarations. */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { createMcpExport } from '../../mcp/export.js'

const TOPICS = ['weather', 'invoice', 'calendar', 'ticket', 'repo']
const VERBS = ['get', 'list', 'create', 'update', 'delete']

function manyTools(): AnyToolDefinition[] {
  const tools: AnyToolDefinition[] = []
  for (let i = 0; i < 100; i++) {
    for (const [t, topic] of TOPICS.entries()) {
      const verb = VERBS[(i + t) % VERBS.length]!
      tools.push({
        name: `svc${i}__${verb}_${topic}`,
        description: `${verb} a ${topic} in service ${i}.`,
        parameters: z.object({ id: z.string().describe(`The ${topic} id`) }),
        output: z.object({ id: z.string(), topic: z.literal(topic) }),
        execute: ({ id }: { id: string }) => ({ id, topic }),
      })
    }
  }
  return tools
}

describe('export: discovery for 500 tools', () => {
  let rt: Runtime
  let client: Client

  beforeAll(async () => {
    rt = await createRuntime({ tools: manyTools(), typecheck: 'off' })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await createMcpExport(rt).createServer().connect(serverSide)
    client = new Client({ name: 'discovery-test', version: '1.0.0' })
    await client.connect(clientSide)
  })
  afterAll(async () => {
    await client?.close()
    await rt?.close()
  })

  const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text

  it('lists run_code with a short index and the two discovery tools', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['run_code', 'search_tools', 'describe_tool'])
    const description = tools[0]!.description!
    expect(rt.sdk.declarations().length).toBeGreaterThan(50_000)
    expect(description.length).toBeLessThan(5_000)
    expect(description).toContain('There are 500 tools')
    expect(description).toContain('- svc0__ (5): create_calendar, delete_repo, get_weather, list_invoice, …')
    expect(description).not.toContain('interface Tools')
  })

  it('search_tools returns the declarations of the best matches, result types included', async () => {
    const found = text(await client.callTool({ name: 'search_tools', arguments: { query: 'svc7 weather', limit: 3 } }))
    expect(found).toMatch(
      /^3 tool\(s\) matching "svc7 weather":\n\n```ts\ninterface Tools \{\n {2}\/\*\* \w+ a weather in service 7\. \*\/\n {2}svc7__\w+_weather\(args: \{/,
    )
    expect(found).toContain('Promise<{ id: string; topic: "weather" }>')
    expect(found.match(/\(args/g)).toHaveLength(3)
    const none = text(await client.callTool({ name: 'search_tools', arguments: { query: 'zzzz' } }))
    expect(none).toMatch(/^No tool matches "zzzz"\. Tool groups: svc0__ \(5\)/)
  })

  it('describe_tool returns one declaration, or ENOSYS with a suggestion', async () => {
    const one = text(await client.callTool({ name: 'describe_tool', arguments: { name: 'svc3__list_ticket' } }))
    expect(one).toContain('/** list a ticket in service 3. */')
    expect(one).toMatch(/svc3__list_ticket\(args: \{[^]*id: string[^]*\}\): Promise<\{ id: string; topic: "ticket" \}>/)
    const wrong = (await client.callTool({ name: 'describe_tool', arguments: { name: 'svc3__list_tickets' } })) as CallToolResult
    expect(wrong.isError).toBe(true)
    expect(text(wrong)).toMatch(/^ENOSYS: no tool named "svc3__list_tickets"; did you mean "svc3__list_ticket"/)
  })

  it('runs a program calling any of the 500 tools', async () => {
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { code: `return await tools.svc42__get_ticket({ id: 't1' })` },
    })) as CallToolResult
    expect((result.structuredContent as { value: unknown }).value).toEqual({ id: 't1', topic: 'ticket' })
  })

  it('keeps the full SDK in run_code for a small registry, without discovery tools', async () => {
    const small = await createRuntime({ tools: manyTools().slice(0, 3), typecheck: 'off' })
    const [c, s] = InMemoryTransport.createLinkedPair()
    await createMcpExport(small).createServer().connect(s)
    const smallClient = new Client({ name: 'small', version: '1.0.0' })
    await smallClient.connect(c)
    const { tools } = await smallClient.listTools()
    expect(tools.map((t) => t.name)).toEqual(['run_code'])
    expect(tools[0]!.description).toContain('svc0__get_weather(args:')
    const refused = (await smallClient.callTool({ name: 'search_tools', arguments: { query: 'x' } })) as CallToolResult
    expect(refused.isError).toBe(true)
    await smallClient.close()
    await small.close()
  })
})

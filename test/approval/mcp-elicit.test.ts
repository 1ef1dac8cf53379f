/**
 * `codeact mcp --ask TOOL` over stdio with the official SDK client: a client that declares elicitation
 * is asked (`elicitation/create`) and its accept / decline decide the call; a client that does not is
 * never asked, and the call is refused with a message saying why.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO_ROOT, tempDir } from '../mcp/helpers.js'

const CLI = join(REPO_ROOT, 'test', 'mcp', 'fixtures', 'cli-entry.mjs')
const dir = tempDir('codeact-elicit-')
const TOOLS = join(dir, 'tools.mjs')
writeFileSync(
  TOOLS,
  `export default [{
    name: 'remove', description: 'Delete a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: ({ path }) => ({ removed: path }),
  }]\n`,
)

const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

async function connect(answer?: (request: ElicitRequest) => Promise<ElicitResult>): Promise<Client> {
  const client = new Client({ name: 'elicit-test', version: '1.0.0' }, answer ? { capabilities: { elicitation: {} } } : {})
  if (answer) client.setRequestHandler(ElicitRequestSchema, answer)
  // --timeout far below the person's reading time: the wait is not the program's.
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--tools', TOOLS, '--ask', 'remove', '--expose-tools', '--timeout', '300'],
      cwd: REPO_ROOT,
      stderr: 'pipe',
    }),
  )
  clients.push(client)
  return client
}

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('')
const program = `const out: string[] = []
for (const path of ['a', 'b']) out.push(await tools.remove({ path }).then(() => 'removed ' + path, (e) => e.code + ' ' + e.message))
return out`

describe('codeact mcp --ask', () => {
  it('asks a client that declares elicitation; accept runs the call, decline refuses it', async () => {
    const asked: ElicitRequest['params'][] = []
    const client = await connect(async (request) => {
      asked.push(request.params)
      await new Promise((r) => setTimeout(r, 700)) // a person reading
      return asked.length === 1 ? { action: 'accept', content: { always: false } } : { action: 'decline' }
    })
    const result = await client.callTool({ name: 'run_code', arguments: { code: program } })
    expect(text(result)).toContain('["removed a","EACCES not approved: the user declined"]')
    expect(asked.map((p) => p.message)).toEqual(['Allow remove({"path":"a"})?', 'Allow remove({"path":"b"})?'])
    expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: { type: 'object', properties: { always: { type: 'boolean' } } } })
  })

  it('"always" in the accepted form approves the tool from then on; exposed tools are asked too', async () => {
    let asked = 0
    const client = await connect(async () => {
      asked++
      return { action: 'accept', content: { always: true } }
    })
    const result = await client.callTool({ name: 'run_code', arguments: { code: program } })
    expect(text(result)).toContain('["removed a","removed b"]')
    const direct = await client.callTool({ name: 'remove', arguments: { path: 'c' } })
    expect(text(direct)).toContain('"removed":"c"')
    expect(asked).toBe(1)
    // "always" belongs to the connection that said it: another client is asked afresh.
    let askedOther = 0
    const other = await connect(async () => {
      askedOther++
      return { action: 'decline' }
    })
    expect(text(await other.callTool({ name: 'remove', arguments: { path: 'd' } }))).toContain('not approved: the user declined')
    expect(askedOther).toBe(1)
  })

  it('a client without elicitation is never asked: the call is refused, saying why', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'run_code', arguments: { code: program } })
    expect(text(result)).toContain('EACCES not approved: this MCP client cannot be asked (it does not declare the elicitation capability)')
    const direct = await client.callTool({ name: 'remove', arguments: { path: 'c' } })
    expect(direct.isError).toBe(true)
    expect(text(direct)).toContain('does not declare the elicitation capability')
  })

  it('asks the same full text as the terminal: the whole call, padding counted, bidi overrides and look-alikes escaped', async () => {
    const asked: string[] = []
    const client = await connect(async (request) => {
      asked.push(request.params.message)
      return { action: 'decline' }
    })
    const hostile = `await tools.remove({ path: 'notes.txt' + ' '.repeat(250) + '; rm -rf ~' }).catch(() => {})
await tools.remove({ path: 'p\u0430sswd \u202Etxt.exe' }).catch(() => {})`
    await client.callTool({ name: 'run_code', arguments: { code: hostile } })
    expect(asked).toEqual([
      'Allow remove({"path":"notes.txt«250 spaces»; rm -rf ~"})?',
      'Allow remove({"path":"p\\u{430}sswd \\u202etxt.exe"})?',
    ])
  })
})

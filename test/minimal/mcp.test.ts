/**
 * `codeact mcp --minimal [openai]` as an MCP client sees it: exactly the vendor's pair of tools, a shell
 * that keeps its state from call to call, and no shell left once the server is gone.
 */
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { eventually, freshRoot, processesMentioning } from './support.js'

const bin = join(import.meta.dirname, '..', '..', 'bin', 'codeact.mjs')

async function serve(args: string[]) {
  const client = new Client({ name: 'minimal-test', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', ...args], stderr: 'pipe' }))
  return client
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0]!.text

describe('codeact mcp --minimal', () => {
  it("serves Anthropic's pair by default, with a persistent shell; closing the client ends the shell", async () => {
    const root = freshRoot()
    const client = await serve(['--minimal', '--workspace', root])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['bash', 'str_replace_based_edit_tool'])
    expect(text(await client.callTool({ name: 'bash', arguments: { command: 'mkdir w && cd w && f() { echo "f$1"; }' } }))).toBe('')
    expect(text(await client.callTool({ name: 'bash', arguments: { command: 'f 1; pwd' } }))).toBe(`f1\n${root}/w\n`)
    const ro = await client.callTool({ name: 'str_replace_based_edit_tool', arguments: { command: 'view', path: '/etc/passwd' } })
    expect(ro.isError).toBe(true)
    expect(text(ro)).toMatch(/EACCES/)
    const code = await client.callTool({ name: 'run_code', arguments: { code: 'return 1' } })
    expect(text(code)).toMatch(/ENOSYS: unknown tool "run_code"; this server offers bash and str_replace_based_edit_tool/)
    expect(processesMentioning(root).length).toBeGreaterThan(0)
    await client.close()
    expect(await eventually(() => processesMentioning(root).length === 0)).toBe(true)
  })

  it("serves OpenAI's pair with --minimal openai, and refuses what does not fit", async () => {
    const root = freshRoot()
    const client = await serve(['--minimal', 'openai', '--workspace', root, '--max-shells', '2'])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['apply_patch', 'shell'])
    const r = await client.callTool({ name: 'shell', arguments: { commands: ['export Z=3', 'echo $Z'] } })
    expect(r.structuredContent).toEqual({
      result: [
        { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '3\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
      ],
    })
    await client.close()
  })

  it('says what is missing: --minimal needs a workspace, takes anthropic or openai', async () => {
    const { spawnSync } = await import('node:child_process')
    const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'mcp', ...args], { encoding: 'utf8' })
    expect(run('--minimal').stderr).toMatch(/--minimal needs --workspace DIR/)
    expect(run('--minimal=gemini', '--workspace', '.').stderr).toMatch(/--minimal takes anthropic or openai, got "gemini"/)
    expect(run('--max-shells', '2').stderr).toMatch(/--max-shells and --shell-timeout apply to --minimal/)
    await expect(createRuntime({ mode: 'minimal' })).rejects.toThrow(/needs a workspace/)
  })
})

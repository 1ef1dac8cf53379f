/** The pure parts of MCP support: the naming rule, result mapping, and the CLI's --mcp / --mcp-config parsing. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseMcpFlag, serversFromFlags, splitCommandLine } from '../../cli/mcp-args.js'
import { assignNames, suffixOf } from '../../sdk/mcp/naming.js'
import { type McpToolError, mapCallResult } from '../../sdk/mcp/result.js'
import { tempDir } from './helpers.js'

describe('naming', () => {
  it('joins server and tool with __ and maps every other character to _', () => {
    expect(
      assignNames([
        { server: 'fs', tool: 'read_file' },
        { server: 'my.server', tool: 'get-issue/v2' },
      ]),
    ).toEqual(['fs__read_file', 'my_server__get_issue_v2'])
  })

  it('always yields a valid identifier and codeact name', () => {
    const [name] = assignNames([{ server: '9lives', tool: 'ünïcode tool!' }])
    expect(name).toBe('_9lives___n_code_tool_')
    expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)
  })

  it('suffixes colliding names with a stable hash, keeping a name that was already clean', () => {
    const refs = [
      { server: 'gh', tool: 'get-user' },
      { server: 'gh', tool: 'get_user' },
      { server: 'gh', tool: 'get.user' },
    ]
    const names = assignNames(refs)
    expect(names).toEqual([`gh__get_user${suffixOf(refs[0]!)}`, 'gh__get_user', `gh__get_user${suffixOf(refs[2]!)}`])
    expect(assignNames([...refs].reverse())).toEqual([...names].reverse())
    expect(new Set(names).size).toBe(3)
  })

  it('does not shadow names taken by other tools', () => {
    expect(assignNames([{ server: 'a', tool: 'b' }], new Set(['a__b']))).toEqual([`a__b${suffixOf({ server: 'a', tool: 'b' })}`])
  })

  it('cuts names over 64 characters and keeps them distinct', () => {
    const long = 'x'.repeat(70)
    const names = assignNames([
      { server: 'srv', tool: long + 'a' },
      { server: 'srv', tool: long + 'b' },
    ])
    expect(names.every((n) => n.length === 64)).toBe(true)
    expect(names[0]).not.toBe(names[1])
  })
})

describe('result mapping', () => {
  it('prefers structuredContent, then a single text as a string, else an array with summaries', () => {
    expect(mapCallResult('t', { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } })).toEqual({ a: 1 })
    expect(mapCallResult('t', { content: [{ type: 'text', text: '{"a":1}' }] })).toBe('{"a":1}')
    expect(mapCallResult('t', { content: [] })).toBeNull()
    expect(
      mapCallResult('t', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'resource', resource: { uri: 'file:///x', mimeType: 'text/plain', text: 'body' } },
          { type: 'resource', resource: { uri: 'file:///y', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'file:///z', name: 'z' },
        ],
      }),
    ).toEqual([
      'a',
      { type: 'resource', uri: 'file:///x', mimeType: 'text/plain', text: 'body' },
      { type: 'resource', uri: 'file:///y', bytes: 3 },
      { type: 'resource_link', uri: 'file:///z', name: 'z' },
    ])
  })

  it('throws McpToolError with the errno the text names, a close reading, or EREMOTE', () => {
    const codeOf = (text: string) => {
      try {
        mapCallResult('t', { isError: true, content: [{ type: 'text', text }] })
      } catch (e) {
        return [(e as McpToolError).code, (e as McpToolError).message]
      }
      return undefined
    }
    expect(codeOf("Error: ENOENT: no such file or directory, open '/x'")).toEqual([
      'ENOENT',
      "Error: ENOENT: no such file or directory, open '/x'",
    ])
    expect(codeOf('Access denied - path outside allowed directories')![0]).toBe('EACCES')
    expect(codeOf('EXAMPLE is not an errno, the rate limit is')![0]).toBe('EREMOTE')
    expect(codeOf('')).toEqual(['EREMOTE', 't failed on the MCP server (no message)'])
  })
})

describe('--mcp and --mcp-config', () => {
  it('splits a command line like a shell, without expansion', () => {
    expect(splitCommandLine(`npx -y "@scope/pkg" '/tmp/a dir' b\\ c $HOME`)).toEqual({
      ok: true,
      value: ['npx', '-y', '@scope/pkg', '/tmp/a dir', 'b c', '$HOME'],
    })
    expect(splitCommandLine(`echo 'open`)).toEqual({ ok: false, message: 'unclosed single quote' })
  })

  it('reads NAME=COMMAND and NAME=URL', () => {
    expect(parseMcpFlag(`fs=npx -y @modelcontextprotocol/server-filesystem /tmp`)).toEqual({
      ok: true,
      value: { name: 'fs', config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], inheritEnv: true } },
    })
    expect(parseMcpFlag('remote=http://127.0.0.1:9000/mcp')).toEqual({
      ok: true,
      value: { name: 'remote', config: { url: 'http://127.0.0.1:9000/mcp' } },
    })
    expect(parseMcpFlag('no-equals-sign')).toMatchObject({ ok: false, message: expect.stringContaining("NAME='COMMAND ARGS…'") })
  })

  it('loads a Claude Desktop config file and refuses duplicate names', async () => {
    const file = join(tempDir('codeact-mcp-config-'), 'claude_desktop_config.json')
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } },
          remote: { url: 'http://127.0.0.1:9000/mcp' },
        },
        globalShortcut: 'ignored',
      }),
    )
    const ok = await serversFromFlags({ 'mcp-config': [file], mcp: ['fs=node server.js /tmp'] })
    expect(ok).toEqual({
      ok: true,
      value: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } },
        remote: { url: 'http://127.0.0.1:9000/mcp' },
        fs: { command: 'node', args: ['server.js', '/tmp'], inheritEnv: true },
      },
    })
    expect(await serversFromFlags({ 'mcp-config': [file], mcp: ['memory=other'] })).toEqual({
      ok: false,
      message: expect.stringContaining('"memory" is given twice'),
    })
    writeFileSync(file, JSON.stringify({ mcpServers: { bad: { args: ['x'] } } }))
    expect(await serversFromFlags({ 'mcp-config': [file] })).toEqual({
      ok: false,
      message: `${file}: server "bad": expected "command" (a string) or "url"`,
    })
  })
})

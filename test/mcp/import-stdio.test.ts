/** MCP import over stdio against the official reference servers, called from inside programs. */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { attachMcp } from '../../mcp/attach.js'
import type { McpImport } from '../../sdk/mcp/import.js'
import { FILESYSTEM_SERVER, MEMORY_SERVER, nodeServer, tempDir } from './helpers.js'

describe('import: filesystem and memory servers over stdio', () => {
  let rt: Runtime
  let mcp: McpImport
  let dir: string

  beforeAll(async () => {
    dir = tempDir('codeact-mcp-fs-')
    writeFileSync(join(dir, 'notes.txt'), 'alpha\nbeta\n')
    rt = await createRuntime({ typecheck: 'off' })
    mcp = await attachMcp(rt, {
      fs: nodeServer(FILESYSTEM_SERVER, dir),
      memory: { ...nodeServer(MEMORY_SERVER), env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      broken: { command: 'codeact-no-such-command', args: ['--stdio'] },
    })
  })
  afterAll(async () => {
    await mcp?.close()
    await rt?.close()
  })

  it('registers every tool under its server name and puts it in the SDK', () => {
    const names = rt.tools.names()
    expect(names).toContain('fs__read_text_file')
    expect(names).toContain('fs__write_file')
    expect(names).toContain('memory__create_entities')
    expect(names.some((n) => n.startsWith('broken'))).toBe(false)
    expect(rt.sdk.declarations()).toMatch(/fs__read_text_file\(args: \{[^]*?path: string/)
    expect(rt.runCodeTool().description).toContain('memory__read_graph(')
  })

  it('reports the server that failed to start by name and command, and keeps the others', () => {
    expect(mcp.failures).toHaveLength(1)
    const failure = mcp.failures[0]!
    expect(failure).toMatchObject({ server: 'broken', code: 'MCP_UNAVAILABLE' })
    expect(failure.message).toContain('MCP server "broken" is unavailable')
    expect(failure.message).toContain('codeact-no-such-command --stdio')
    expect(failure.message).toMatch(/ENOENT/)
    expect(mcp.servers().map((s) => [s.name, s.status])).toEqual([
      ['fs', 'connected'],
      ['memory', 'connected'],
      ['broken', 'failed'],
    ])
  })

  it('reads, writes and lists files from a program', async () => {
    const result = await rt.runCode(`
      const before = await tools.fs__read_text_file({ path: ${JSON.stringify(join(dir, 'notes.txt'))} })
      await tools.fs__write_file({ path: ${JSON.stringify(join(dir, 'out.txt'))}, content: 'written by a program' })
      const listing = await tools.fs__list_directory({ path: ${JSON.stringify(dir)} })
      console.log('listed')
      return { before, listing }
    `)
    expect(result.error).toBeNull()
    expect(result.ok).toBe(true)
    const value = result.value as { before: { content: string }; listing: { content: string } }
    expect(value.before.content).toBe('alpha\nbeta\n')
    expect(value.listing.content).toContain('[FILE] out.txt')
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('written by a program')
    expect(result.calls.map((c) => c.name)).toEqual(['fs__read_text_file', 'fs__write_file', 'fs__list_directory'])
  })

  it('turns the server refusing a path into EACCES, and a missing file into ENOENT', async () => {
    const result = await rt.runCode(`
      const codes = []
      for (const path of ['/etc/hostname', ${JSON.stringify(join(dir, 'missing.txt'))}]) {
        try { await tools.fs__read_text_file({ path }) } catch (e) { codes.push([e.name, e.code, e.message]) }
      }
      return codes
    `)
    expect(result.ok).toBe(true)
    const codes = result.value as [string, string, string][]
    expect(codes[0]).toEqual(['ToolCallError', 'EACCES', expect.stringContaining('outside allowed directories')])
    expect(codes[1]![1]).toBe('ENOENT')
    expect(result.observation).toMatch(/EACCES/)
  })

  it('validates arguments against the server schema before the server sees them', async () => {
    const result = await rt.runCode(`
      try { await tools.fs__read_text_file({ path: 42 } as any) } catch (e) { return [e.code, e.message] }
    `)
    expect(result.value).toEqual(['EINVAL', expect.stringContaining('path: expected string')])
  })

  it('uses the memory server across calls, and the hooks see MCP calls like any other', async () => {
    const seen: string[] = []
    const off = rt.hooks.on('pre-execute', (call) => {
      seen.push(call.name)
      if (call.name === 'memory__delete_entities') return { deny: { code: 'EPERM', message: 'deleting memories is off' } }
      return undefined
    })
    const result = await rt.runCode(`
      await tools.memory__create_entities({ entities: [{ name: 'codeact', entityType: 'project', observations: ['runs TypeScript'] }] })
      await tools.memory__add_observations({ observations: [{ entityName: 'codeact', contents: ['speaks MCP'] }] })
      let denied = ''
      try { await tools.memory__delete_entities({ entityNames: ['codeact'] }) } catch (e) { denied = e.code }
      const graph = await tools.memory__read_graph({})
      return { denied, graph }
    `)
    off()
    expect(result.error).toBeNull()
    const value = result.value as { denied: string; graph: { entities: { name: string; observations: string[] }[] } }
    expect(value.denied).toBe('EPERM')
    expect(value.graph.entities).toEqual([expect.objectContaining({ name: 'codeact', observations: ['runs TypeScript', 'speaks MCP'] })])
    expect(seen).toEqual(['memory__create_entities', 'memory__add_observations', 'memory__delete_entities', 'memory__read_graph'])
  })

  it('answers native function calls of MCP tools too', async () => {
    const answers = await rt.executeToolCalls([{ type: 'tool_use', id: 'c1', name: 'fs__list_allowed_directories', input: {} }])
    expect(answers[0]).toMatchObject({ tool_use_id: 'c1', is_error: false })
    expect(answers[0]!.content).toContain(dir)
  })
})

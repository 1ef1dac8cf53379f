import { describe, expect, it } from 'vitest'
import { testRuntime } from '../support/runtime.js'
import { MEMORY_SERVER, nodeServer, tempDir } from './helpers.js'

describe('createRuntime({ mcp }): servers join the registry through the same door as any tool', () => {
  it('calls a real MCP server from inside a program, type-checked against its schemas', async () => {
    const rt = await testRuntime({
      typecheck: 'error',
      mcp: {
        memory: { ...nodeServer(MEMORY_SERVER), env: { MEMORY_FILE_PATH: `${tempDir('codeact-memory-')}/memory.jsonl` } },
        broken: { command: '/nonexistent/server' },
      },
    })
    expect(rt.tools.names()).toContain('memory__create_entities')
    expect(rt.sdk.declarations()).toContain('memory__create_entities(')
    expect(rt.mcp?.failures.map((f) => f.server)).toEqual(['broken'])
    const r = await rt.runCode(`
      await tools.memory__create_entities({ entities: [{ name: 'codeact', entityType: 'project', observations: ['runs programs'] }] })
      const graph: any = await tools.memory__read_graph({})
      return JSON.stringify(graph).includes('runs programs')`)
    expect(r.error).toBeNull()
    expect(r.value).toBe(true)
  })
})

/**
 * MCP import edge cases against a small stdio server (fixtures/test-server.mjs): name collisions, result
 * mapping, remote errors, a server that dies mid-run, a call that times out, and tools/list_changed.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { attachMcp } from '../../mcp/attach.js'
import type { McpImport } from '../../sdk/mcp/import.js'
import { suffixOf } from '../../sdk/mcp/naming.js'
import { alive } from '../faults/processes.js'
import { TEST_SERVER, nodeServer } from './helpers.js'

let rt: Runtime | undefined
let mcp: McpImport | undefined
afterEach(async () => {
  await mcp?.close()
  await rt?.close()
  rt = mcp = undefined
})

async function start(extra: { timeoutMs?: number } = {}): Promise<{ rt: Runtime; mcp: McpImport }> {
  rt = await createRuntime({ typecheck: 'off' })
  mcp = await attachMcp(rt, { 'test-server': { ...nodeServer(TEST_SERVER), ...extra } })
  return { rt, mcp }
}

describe('import: names and results', () => {
  it('maps odd names to identifiers and breaks collisions with a stable suffix', async () => {
    const { rt } = await start()
    const kebab = `test_server__get_user${suffixOf({ server: 'test-server', tool: 'get-user' })}`
    const snake = `test_server__get_user${suffixOf({ server: 'test-server', tool: 'get_user' })}`
    expect(rt.tools.names()).toEqual(expect.arrayContaining([kebab, snake, 'test_server__fail', 'test_server__stats']))
    const result = await rt.runCode(`return [await tools.${kebab}({ id: 1 }), await tools.${snake}({ id: 2 })]`)
    expect(result.value).toEqual(['user 1', 'snake 2'])
  })

  it('returns structuredContent, a single text block as a string, and summarizes images', async () => {
    const { rt } = await start()
    const result = await rt.runCode(`
      return {
        stats: await tools.test_server__stats({ n: 7 }),
        json: await tools.test_server__json_text({}),
        picture: await tools.test_server__picture({}),
      }
    `)
    expect(result.value).toEqual({
      stats: { n: 7, square: 49 },
      json: '{"a":1}',
      picture: ['a red dot', { type: 'image', mimeType: 'image/png', bytes: 8 }],
    })
    // outputSchema becomes the declared result type.
    expect(rt.sdk.declarations()).toMatch(/test_server__stats\(args: \{[^}]*\}\): Promise<\{[^}]*square: number/)
  })

  it('turns isError into a ToolCallError carrying the errno the text names, else EREMOTE', async () => {
    const { rt } = await start()
    const result = await rt.runCode(`
      const out = []
      for (const errno of ['ENOENT', undefined]) {
        try { await tools.test_server__fail(errno ? { errno } : {}) } catch (e) { out.push([e.code, e.message]) }
      }
      return out
    `)
    expect(result.value).toEqual([
      ['ENOENT', 'ENOENT: it went wrong'],
      ['EREMOTE', 'something broke remotely'],
    ])
    expect(result.calls.every((c) => !c.ok)).toBe(true)
  })
})

describe('import: a server that dies, stalls or changes', () => {
  it('fails the pending call and later calls with ECONNRESET when the server dies mid-run', async () => {
    const { rt, mcp } = await start()
    const result = await rt.runCode(`
      const out = []
      try { await tools.test_server__die({}) } catch (e) { out.push(e.code + ': ' + e.message) }
      try { await tools.test_server__json_text({}) } catch (e) { out.push(e.code + ': ' + e.message) }
      return out
    `)
    expect(result.ok).toBe(true)
    const [first, second] = result.value as string[]
    expect(first).toMatch(/^ECONNRESET: MCP server "test-server" \(.*test-server\.mjs\)/)
    expect(first).toContain('dying on purpose')
    expect(second).toMatch(/^ECONNRESET: MCP server "test-server" .* is not running/)
    expect(mcp.servers()[0]!.status).toBe('stopped')
  })

  it('times a stalled call out with ETIMEDOUT and cancels it on the server', async () => {
    const { rt } = await start({ timeoutMs: 300 })
    const result = await rt.runCode(`
      try { await tools.test_server__slow({ ms: 20000 }) } catch (e) { return [e.code, e.message] }
    `)
    expect(result.value).toEqual(['ETIMEDOUT', expect.stringContaining('300 ms')])
    // The server is still usable afterwards.
    const again = await rt.runCode(`return await tools.test_server__slow({ ms: 1 })`)
    expect(again.value).toBe('done')
  })

  it('re-registers on tools/list_changed: new tools appear in the SDK, removed ones are gone', async () => {
    const { rt, mcp } = await start()
    const changed = new Promise<{ removed: string[] }>((resolve) => {
      const off = mcp.onToolsChanged((c) => {
        if (rt.tools.names().includes('test_server__shiny')) {
          off()
          resolve(c)
        }
      })
    })
    const first = await rt.runCode(`return await tools.test_server__add_tool({ name: 'shiny' })`)
    expect(first.value).toBe('added')
    await changed
    expect(rt.sdk.declarations()).toContain('test_server__shiny(args: ')
    const second = await rt.runCode(`return await tools.test_server__shiny({ x: 'y' })`)
    expect(second.value).toBe('shiny:y')

    const snake = `test_server__get_user${suffixOf({ server: 'test-server', tool: 'get_user' })}`
    const gone = new Promise<string[]>((resolve) => mcp.onToolsChanged((c) => c.removed.length && resolve(c.removed)))
    await rt.runCode(`await tools.test_server__remove_tool({})`)
    // With get_user gone, get-user no longer collides and loses its suffix.
    expect((await gone).sort()).toEqual([`test_server__get_user${suffixOf({ server: 'test-server', tool: 'get-user' })}`, snake].sort())
    expect(rt.tools.names()).toContain('test_server__get_user')
    const third = await rt.runCode(`try { await tools.${snake}({ id: 1 }) } catch (e) { return e.code }`)
    expect(third.value).toBe('ENOSYS')
    expect((await rt.runCode(`return await tools.test_server__get_user({ id: 3 })`)).value).toBe('user 3')
  })

  // A hung server that ignores its stdin (and, the second time, SIGTERM too) is gone when attachMcp answers: the
  // SDK's own close, unawaited after a failed connect, waited 2 s before its SIGTERM, so a host that finished
  // sooner (a `codeact run`, this test) left it running for ever.
  for (const [what, trap] of [
    ['ignores its stdin', ''],
    ['also ignores SIGTERM', "process.on('SIGTERM', () => {});"],
  ] as const) {
    it(`ends a server that never answers initialize and ${what}, before attachMcp answers`, async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), 'codeact-mute-')), 'pid')
      const script = `${trap} require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`
      rt = await createRuntime({ typecheck: 'off' })
      mcp = await attachMcp(rt, { mute: { command: process.execPath, args: ['-e', script], startTimeoutMs: 500 } })
      expect(mcp.failures.map((f) => f.server)).toEqual(['mute'])
      const pid = Number(readFileSync(pidFile, 'utf8'))
      expect(pid).toBeGreaterThan(0)
      expect(alive(pid), `server ${pid} still running after attachMcp answered`).toBe(false)
    })
  }

  it('fails a server that starts but never answers initialize, naming it, within its start timeout', async () => {
    rt = await createRuntime({ typecheck: 'off' })
    mcp = await attachMcp(rt, {
      mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], startTimeoutMs: 500 },
      ok: nodeServer(TEST_SERVER),
    })
    expect(mcp.failures.map((f) => f.server)).toEqual(['mute'])
    expect(mcp.failures[0]!.message).toMatch(
      /MCP server "mute" is unavailable \(command: .*node.* -e .*\): it did not answer within 500 ms/,
    )
    expect(rt.tools.names()).toContain('ok__fail')
  })
})

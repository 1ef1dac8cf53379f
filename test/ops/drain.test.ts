/**
 * SIGTERM as an orchestrator sends it to `codeact mcp --http`: the turn running finishes, no new session
 * is taken, the process exits 0 and leaves no child behind; what runs past `--drain-timeout` is cancelled
 * with an answer that says why; a second signal stops it at once.
 */
import { describe, expect, it } from 'vitest'
import { type CliServer, initializeBody, MCP_HEADERS } from '../mcp/http-helpers.js'
import { descendantsOf } from '../../bench/fleet.js'
import { alive, connectClient, eventually, exitOf, jsonLines, metrics, route, runCode, servicesForEachTest } from './helpers.js'

const start = servicesForEachTest()

/** Waits until a run is in flight on the server (its tool call has started). */
async function runInFlight(server: CliServer): Promise<void> {
  await eventually(async () => (await metrics(server.url)).get('codeact_runs_in_flight') === 1, 'a run in flight')
}

describe('SIGTERM: graceful drain', () => {
  it('lets the running turn finish, refuses new sessions, turns not-ready, exits 0 and leaves no child', async () => {
    const server = await start(['--drain-timeout', '60000'])
    const { client } = await connectClient(server.url)
    await runCode(client, 'return 1') // the session's child process is up
    const children = descendantsOf(server.child.pid!)
    expect(children.length).toBeGreaterThan(0)

    const turn = runCode(client, 'await tools.sleep({ ms: 1500 }); return await tools.increment({ by: 1 })')
    await runInFlight(server)
    const exited = exitOf(server)
    server.child.kill('SIGTERM')

    await eventually(async () => (await fetch(route(server.url, '/readyz'))).status === 503, '/readyz turning 503')
    const ready = await fetch(route(server.url, '/readyz'))
    expect(await ready.json()).toMatchObject({ ready: false, draining: true })
    expect((await fetch(route(server.url, '/healthz'))).status).toBe(200)
    const refused = await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: initializeBody() })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await refused.text()).toContain('shutting down')
    expect((await metrics(server.url)).get('codeact_draining')).toBe(1)

    const result = await turn
    expect(result.isError).toBeFalsy()
    expect((result.structuredContent as { value: unknown }).value).toBe(1)
    expect(await exited).toEqual({ code: 0, signal: null })
    for (const pid of children) expect(alive(pid), `child ${pid} outlived the server`).toBe(false)
    const drained = jsonLines(server.stderr()).find((l) => typeof l.cancelled === 'number')
    expect(drained).toMatchObject({ cancelled: 0 })
  })

  it('past --drain-timeout, cancels the turn with an answer that says why, and still exits 0', async () => {
    const server = await start(['--drain-timeout', '300'])
    const { client } = await connectClient(server.url)
    await runCode(client, 'return 1')
    const turn = runCode(client, 'await tools.increment({ by: 1 }); await tools.sleep({ ms: 600000 }); return "never"')
    // The program is past its first call, inside the second.
    await eventually(
      async () => (await metrics(server.url)).get('codeact_tool_calls_total{tool="increment",outcome="ok"}') === 1,
      'the first call',
    )
    const children = descendantsOf(server.child.pid!)
    const exited = exitOf(server)
    server.child.kill('SIGTERM')

    const result = await turn
    expect(result.isError).toBe(true)
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n')
    expect(text).toMatch(/^codeact: the server is shutting down; it waited 300 ms \(--drain-timeout\) and then stopped this call/)
    expect((result.structuredContent as { error: { kind: string } }).error.kind).toBe('aborted')
    // The call that had succeeded is reported; the pending one was answered.
    const calls = (result.structuredContent as { calls: { name: string; ok: boolean; code?: string }[] }).calls
    expect(calls.map((c) => [c.name, c.ok])).toEqual([
      ['increment', true],
      ['sleep', false],
    ])
    expect(await exited).toEqual({ code: 0, signal: null })
    for (const pid of children) expect(alive(pid)).toBe(false)
    expect(jsonLines(server.stderr()).find((l) => typeof l.cancelled === 'number')).toMatchObject({ cancelled: 1 })
  })

  it('a second signal during the drain exits at once', async () => {
    const server = await start(['--drain-timeout', '600000'])
    const { client } = await connectClient(server.url)
    void runCode(client, 'await tools.sleep({ ms: 600000 })').catch(() => {})
    await runInFlight(server)
    const children = descendantsOf(server.child.pid!)
    const exited = exitOf(server)
    server.child.kill('SIGTERM')
    await eventually(() => server.stderr().includes('draining'), 'the drain to start')
    server.child.kill('SIGINT')
    expect(await exited).toEqual({ code: 130, signal: null })
    await client.close()
    // Not drained, but nothing left behind either: a child ends with its host.
    await eventually(() => children.every((pid) => !alive(pid)), 'the children to end with the server')
  })
})

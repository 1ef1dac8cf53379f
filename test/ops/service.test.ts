/**
 * `codeact mcp --http` run as a service, from the operator's side: a real server process, probed, scraped
 * and signalled as a kubelet, Prometheus and a log collector would.
 */
import { spawn } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT, tempDir } from '../mcp/helpers.js'
import { initializeBody, MCP_HEADERS, startHttpCli } from '../mcp/http-helpers.js'
import { connectClient, eventually, jsonLines, metrics, route, runCode, servicesForEachTest, startService } from './helpers.js'

const start = servicesForEachTest()

describe('the probes', () => {
  it('/healthz and /readyz answer without the token, Host or Origin that /mcp demands, and leak nothing', async () => {
    const server = await startHttpCli(['--typecheck=off', '--token', 'a-token-of-sixteen-chars-or-more'])
    try {
      // A kubelet's request: the pod's address as Host, no token; a page's: a foreign Origin.
      const headers = { host: '10.1.2.3:8080', origin: 'https://evil.example' }
      const health = await fetch(route(server.url, '/healthz'), { headers })
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: 'ok' })
      expect(health.headers.get('access-control-allow-origin')).toBeNull()
      const ready = await fetch(route(server.url, '/readyz'), { headers })
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ ready: true, draining: false, checks: [{ name: 'sandbox', ok: true }] })
      // /mcp itself still asks for all of it.
      expect((await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: initializeBody() })).status).toBe(401)
      // Only reads: a POST to a probe is refused.
      expect((await fetch(route(server.url, '/readyz'), { method: 'POST' })).status).toBe(405)
    } finally {
      await server.stop()
    }
  })

  it('/readyz is 503 while a registered check fails, naming the check only', async () => {
    const dir = tempDir('codeact-ops-ready-')
    const flag = join(dir, 'down')
    const child = spawn(process.execPath, [join(REPO_ROOT, 'test/ops/fixtures/serve-with-check.mjs'), flag], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          if (out.includes('\n')) resolve(out.trim())
        })
        child.once('exit', (code) => reject(new Error(`the server exited ${code}`)))
      })
      const readyz = async () => {
        const res = await fetch(route(url, '/readyz'))
        return { status: res.status, body: (await res.json()) as { ready: boolean; checks: { name: string; ok: boolean }[] } }
      }
      expect((await readyz()).status).toBe(200)
      writeFileSync(flag, '')
      const down = await readyz()
      expect(down.status).toBe(503)
      expect(down.body).toEqual({
        ready: false,
        draining: false,
        checks: [
          { name: 'sandbox', ok: true },
          { name: 'upstream', ok: false },
        ],
      })
      expect(JSON.stringify(down.body)).not.toContain(flag)
      rmSync(flag)
      expect((await readyz()).status).toBe(200)
    } finally {
      child.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('/metrics and the JSON log after real runs', () => {
  it('counts the runs by outcome and the tool calls by tool, and logs one line per run with its ids', async () => {
    const server = await start()
    const { client, sessionId } = await connectClient(server.url)
    try {
      const ok = [
        'return await tools.increment({ by: 1 })',
        'await tools.echo({ text: "a" }); return await tools.echo({ text: "b" })',
        'return 1',
      ]
      for (const code of ok) expect((await runCode(client, code)).isError).toBeFalsy()
      const failed = await runCode(client, 'await tools.increment({ by: 1 }); throw new Error("boom")')
      expect(failed.isError).toBe(true)
      const bad = await runCode(client, 'await tools.increment({ by: "x" as never })')
      expect(bad.isError).toBe(true)
      const m = await metrics(server.url)
      expect(m.get('codeact_runs_total{outcome="ok"}')).toBe(3)
      expect(m.get('codeact_runs_total{outcome="runtime"}')).toBe(2)
      expect(m.get('codeact_run_duration_seconds_count{outcome="ok"}')).toBe(3)
      expect(m.get('codeact_tool_calls_total{tool="increment",outcome="ok"}')).toBe(2)
      expect(m.get('codeact_tool_calls_total{tool="increment",outcome="EINVAL"}')).toBe(1)
      expect(m.get('codeact_tool_calls_total{tool="echo",outcome="ok"}')).toBe(2)
      expect(m.get('codeact_tool_call_duration_seconds_count{tool="increment"}')).toBe(3)
      expect(m.get('codeact_runs_in_flight')).toBe(0)
      expect(m.get('codeact_sessions_live')).toBe(1)
      expect(m.get('codeact_child_processes')).toBeGreaterThanOrEqual(1)
      expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(0)

      const runs = jsonLines(server.stderr()).filter((l) => l.msg === 'run')
      expect(runs).toHaveLength(5)
      for (const line of runs) {
        expect(line.runId).toMatch(/^mcp_[0-9a-f]{8}$/)
        expect(line.sessionId).toBe(sessionId)
        expect(typeof line.durationMs).toBe('number')
        expect(typeof line.time).toBe('string')
      }
      expect(runs.map((l) => l.outcome)).toEqual(['ok', 'ok', 'ok', 'runtime', 'runtime'])
      expect(runs.map((l) => [l.calls, l.failedCalls])).toEqual([
        [1, 0],
        [2, 0],
        [0, 0],
        [1, 0],
        [1, 1],
      ])
    } finally {
      await client.close()
    }
  })

  it('a program calling made-up tool names adds no label per name', async () => {
    const server = await start()
    const { client } = await connectClient(server.url)
    try {
      const code = 'for (let i = 0; i < 20; i++) { try { await (tools as any)["nope_" + i]({}) } catch {} }; return 1'
      await runCode(client, code)
      const m = await metrics(server.url)
      const toolLabels = new Set([...m.keys()].filter((k) => k.startsWith('codeact_tool_calls_total')))
      expect([...toolLabels].some((k) => k.includes('nope_'))).toBe(false)
    } finally {
      await client.close()
    }
  })
})

describe('--log-format', () => {
  it('rejects a format it does not know, naming the two it takes', async () => {
    await expect(startService(['--log-format', 'xml'])).rejects.toThrow(/--log-format takes json or text, got "xml"/)
  })

  it('every stderr line of a JSON-logging server is one JSON object', async () => {
    const server = await start()
    const { client } = await connectClient(server.url)
    await runCode(client, 'return 1')
    await client.close()
    await eventually(() => jsonLines(server.stderr()).some((l) => l.msg === 'run'), 'the run line')
    const lines = jsonLines(server.stderr())
    expect(lines.find((l) => typeof l.url === 'string')?.url).toBe(server.url)
    for (const l of lines) expect(['info', 'warn', 'error']).toContain(l.level)
  })
})

/**
 * OpenTelemetry from `codeact mcp --http`, as a platform collects it: an OTLP/HTTP receiver (a real HTTP
 * server on loopback, the way a collector listens) gets a span per run and per tool call, with the GenAI
 * semantic conventions' attribute names, inside the trace the caller's `traceparent` named.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { CliServer } from '../mcp/http-helpers.js'
import { connectClient, eventually, exitOf, runCode, startService } from './helpers.js'

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[]
  status?: { code?: number }
}

/** An OTLP/HTTP JSON receiver: every span posted to /v1/traces, and the service names they came with. */
async function receiver(): Promise<{ url: string; spans: OtlpSpan[]; services: string[]; server: Server }> {
  const spans: OtlpSpan[] = []
  const services: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const json = JSON.parse(body) as {
          resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[]
        }
        for (const rs of json.resourceSpans) {
          services.push(rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '')
          for (const ss of rs.scopeSpans) spans.push(...ss.spans)
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, services, server }
}

const attrs = (span: OtlpSpan) => Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.intValue]))

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe('OpenTelemetry traces', () => {
  it('a span per run and per tool call, GenAI attribute names, under the caller trace of traceparent', async () => {
    const otlp = await receiver()
    cleanup.push(() => new Promise((r) => otlp.server.close(() => r())))
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'codeact-test' }
    const server: CliServer = await startService([], env)
    cleanup.push(() => server.stop())
    const traceId = randomBytes(16).toString('hex')
    const callerSpan = randomBytes(8).toString('hex')
    const { client } = await connectClient(server.url, { traceparent: `00-${traceId}-${callerSpan}-01` })
    const ok = await runCode(client, 'await tools.increment({ by: 2 }); return await tools.echo({ text: "x" })')
    expect(ok.isError).toBeFalsy()
    await runCode(client, 'await tools.increment({ by: "no" as never })')
    await client.close()
    await eventually(() => otlp.spans.filter((s) => s.name === 'execute_tool run_code').length === 2, 'both run spans exported')

    const runs = otlp.spans.filter((s) => s.name === 'execute_tool run_code')
    for (const run of runs) {
      expect(run.traceId).toBe(traceId)
      expect(run.parentSpanId).toBe(callerSpan)
      expect(run.kind).toBe(1) // SPAN_KIND_INTERNAL
      expect(attrs(run)).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'run_code',
        'gen_ai.tool.type': 'function',
      })
      expect(attrs(run)['gen_ai.tool.call.id']).toMatch(/^mcp_[0-9a-f]{8}$/)
    }
    const [first, second] = runs
    const children = (run: OtlpSpan) => otlp.spans.filter((s) => s.parentSpanId === run.spanId)
    expect(children(first!).map((s) => s.name)).toEqual(['execute_tool increment', 'execute_tool echo'])
    for (const call of children(first!)) {
      expect(call.traceId).toBe(traceId)
      expect(attrs(call)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.type': 'function' })
      expect(attrs(call)['gen_ai.tool.call.id']).toEqual(expect.any(String))
    }
    // A failed call and a failed run carry error.type and an error status.
    const [bad] = children(second!)
    expect(attrs(bad!)['error.type']).toBe('EINVAL')
    expect(bad!.status?.code).toBe(2)
    expect(attrs(second!)['error.type']).toBe('runtime')
    expect(otlp.services).toContain('codeact-test')
  })

  it('without traceparent a run is the root of a trace of its own; spans are flushed at SIGTERM', async () => {
    const otlp = await receiver()
    cleanup.push(() => new Promise((r) => otlp.server.close(() => r())))
    // A long batch delay: only the flush at shutdown sends the spans.
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '600000' }
    const server = await startService([], env)
    cleanup.push(() => server.stop())
    const { client } = await connectClient(server.url)
    await runCode(client, 'return await tools.increment({ by: 1 })')
    await client.close()
    expect(otlp.spans).toEqual([])
    const exited = exitOf(server)
    server.child.kill('SIGTERM')
    expect(await exited).toEqual({ code: 0, signal: null })
    const run = otlp.spans.find((s) => s.name === 'execute_tool run_code')
    expect(run).toBeDefined()
    expect(run!.parentSpanId ?? '').toBe('')
    expect(otlp.services).toContain('codeact')
  })
})

// Programs end to end through the Sandbox seam on a real engine: values, tool calls, console, errors,
// and the things that end a run early (timeout, abort, process.exit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, isRunning, never, ownContainers, request, testHost } from './helpers.js'

describe.skipIf(!dockerEngine.available)('docker sandbox: runs', () => {
  let sandbox: DockerSandbox
  beforeAll(async () => {
    await ensureImage()
    sandbox = createDockerSandbox({ poolSize: 2 })
    await sandbox.start()
  })
  afterAll(async () => {
    await sandbox.close()
    expect(await ownContainers()).toEqual([])
  })

  it('returns the value, makes tool calls in order and forwards the console', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(
        `console.log('start', 1); const x = await tools.add({ a: 2, b: 3 }); const e = await tools.echo({ s: 'hé' }); console.warn('sum', x); return { x, e }`,
      ),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: JSON.stringify({ x: 5, e: { s: 'hé' } }), droppedOutputBytes: 0 })
    expect(host.calls.map((c) => c.name)).toEqual(['add', 'echo'])
    expect(host.logs).toEqual([
      { level: 'log', text: 'start 1' },
      { level: 'warn', text: 'sum 5' },
    ])
  })

  it('a failed tool call throws ToolCallError with the code, which the program can catch', async () => {
    const out = await sandbox.run(
      request(`try { await tools.fail({}) } catch (e) { return [e instanceof ToolCallError, e.name, e.code, e.toolName, e.message] }`),
      testHost(),
      never(),
    )
    expect(out.ok && JSON.parse(out.valueJson ?? 'null')).toEqual([true, 'ToolCallError', 'EACCES', 'fail', 'denied by the test host'])
  })

  it('parallel tool calls each get their own answer', async () => {
    const out = await sandbox.run(
      request(`const r = await Promise.all([1,2,3,4,5].map((i) => tools.add({ a: i, b: 10 }))); return r`),
      testHost(),
      never(),
    )
    expect(out.ok && out.valueJson).toBe('[11,12,13,14,15]')
  })

  it('a thrown error is a runtime error with the program.js stack', async () => {
    const out = await sandbox.run(request(`const a = 1\nthrow new TypeError('bad thing ' + a)`), testHost(), never())
    expect(out.ok).toBe(false)
    if (out.ok) return
    expect(out.error.kind).toBe('runtime')
    expect(out.error.message).toBe('TypeError: bad thing 1')
    expect(out.error.stack).toMatch(/program\.js:3:\d+/)
  })

  it('stray writes to process.stdout and the global console become console lines, not protocol', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`process.stdout.write('{"type":"done","outcomeJson":"{}"}\\n'); globalThis.console.log('global'); return 7`),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '7' })
    expect(host.logs.map((l) => l.text)).toEqual(['{"type":"done","outcomeJson":"{}"}', 'global'])
  })

  it('the console output cap drops the rest and counts it', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`for (let i = 0; i < 1000; i++) console.log('x'.repeat(99)); return 1`, { maxOutputBytes: 1000 }),
      host,
      never(),
    )
    expect(out.ok).toBe(true)
    expect(out.droppedOutputBytes).toBeGreaterThan(90_000)
    expect(host.logs.filter((l) => l.level === 'log').length).toBe(10)
  })

  it('a wall-clock timeout kills the container', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`await tools.echo({ id: require('node:os').hostname() }); while (true) {}`, { timeoutMs: 1500 }),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: false, error: { kind: 'timeout', message: 'the program exceeded the time limit of 1500 ms' } })
    expect(await isRunning(String((host.calls[0]!.args as { id: string }).id))).toBe(false)
  })

  it('an abort kills the container and the outcome is aborted', async () => {
    const ac = new AbortController()
    const host = testHost()
    const echo = host.callTool.bind(host)
    host.callTool = async (name, args) => {
      setTimeout(() => ac.abort(), 300)
      return echo(name, args)
    }
    const out = await sandbox.run(
      request(`await tools.echo({ id: require('node:os').hostname() }); await new Promise(() => {})`),
      host,
      ac.signal,
    )
    expect(out).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    expect(await isRunning(String((host.calls[0]!.args as { id: string }).id))).toBe(false)
  })

  it('process.exit before the program finishes is a runtime error naming the exit', async () => {
    const out = await sandbox.run(request(`process.exit(3)`), testHost(), never())
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime' } })
    if (!out.ok) expect(out.error.message).toMatch(/exited with code 3/)
  })

  it('a tool call still in flight when the run dies gets its answer before the outcome', async () => {
    const host = testHost()
    let answered = 0
    const callTool = host.callTool.bind(host)
    host.callTool = async (name, args) => {
      const r = await callTool(name, args)
      answered++
      return r
    }
    const out = await sandbox.run(
      request(`tools.slow({ ms: 400 }); await new Promise((r) => setTimeout(r, 50)); process.exit(1)`),
      host,
      never(),
    )
    expect(out.ok).toBe(false)
    expect(answered).toBe(1)
  })

  it('a container that ran a program is never used again: each run sees a fresh process', async () => {
    const a = await sandbox.run(
      request(`globalThis.mark = (globalThis.mark ?? 0) + 1; return [globalThis.mark, require('node:os').hostname()]`),
      testHost(),
      never(),
    )
    const b = await sandbox.run(
      request(`globalThis.mark = (globalThis.mark ?? 0) + 1; return [globalThis.mark, require('node:os').hostname()]`),
      testHost(),
      never(),
    )
    const va = JSON.parse(a.ok ? (a.valueJson ?? '') : '') as [number, string]
    const vb = JSON.parse(b.ok ? (b.valueJson ?? '') : '') as [number, string]
    expect(va[0]).toBe(1)
    expect(vb[0]).toBe(1)
    expect(va[1]).not.toBe(vb[1])
  })
})

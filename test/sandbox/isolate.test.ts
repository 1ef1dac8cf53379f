/**
 * The isolate backend through the Sandbox interface: values, tool calls, errors, console output, warm
 * reuse and the failure modes of starting. Real isolates in the real child process (run `npm run build`
 * first: the child is the built `dist/sandbox/isolate/child.js`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { MAX_CALLS_IN_FLIGHT } from '../../guest/limits.js'
import type { Sandbox } from '../../sandbox/types.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

async function run(body: string, host = new RecordingHost(), limits = {}) {
  const outcome = await sandbox.run(request(body, limits), host, never())
  return { outcome, host }
}

describe('isolate sandbox: running a program', () => {
  it('is named isolate', () => {
    expect(sandbox.name).toBe('isolate')
  })

  it('returns the program value as JSON text', async () => {
    const { outcome } = await run('return { answer: 6 * 7, list: [1, "two", null] }')
    expect(outcome).toEqual({ ok: true, valueJson: '{"answer":42,"list":[1,"two",null]}', droppedOutputBytes: 0 })
  })

  it('reports no value when the program returns nothing', async () => {
    const { outcome } = await run('const x = 1')
    expect(outcome.ok).toBe(true)
    expect(outcome.ok && outcome.valueJson).toBeUndefined()
  })

  it('notes a value that JSON cannot hold', async () => {
    const { outcome } = await run('return { big: 10n }')
    expect(outcome).toMatchObject({ ok: true, valueJson: '{"big":"10n"}', valueNote: 'converted for JSON: BigInt→string "10n"' })
  })

  it('supports top-level await across a chain of tool calls', async () => {
    const { outcome, host } = await run(`
      const a = await tools.echo({ n: 1 })
      const b = await tools.echo({ n: a.n + 1 })
      return b.n`)
    expect(outcome).toMatchObject({ ok: true, valueJson: '2' })
    expect(host.calls).toEqual([
      { name: 'echo', args: { n: 1 } },
      { name: 'echo', args: { n: 2 } },
    ])
  })

  it('keeps issue order for parallel calls, whatever finishes first', async () => {
    const { outcome, host } = await run(`
      const results = await Promise.all([
        tools.slow({ ms: 60, value: 'a' }),
        tools.slow({ ms: 1, value: 'b' }),
        tools.echo({ c: true }),
      ])
      return results`)
    expect(outcome).toMatchObject({ ok: true, valueJson: '["a","b",{"c":true}]' })
    expect(host.names).toEqual(['slow', 'slow', 'echo'])
  })

  it('turns a failed call into a catchable ToolCallError with its code', async () => {
    const { outcome } = await run(`
      try { await tools.fail({}) } catch (e) {
        return [e instanceof ToolCallError, e.name, e.toolName, e.code, e.message]
      }`)
    expect(outcome).toMatchObject({ ok: true, valueJson: '[true,"ToolCallError","fail","EACCES","denied by the test host"]' })
  })

  it('sends calls to unknown tools to the host, which answers ENOSYS', async () => {
    const { outcome, host } = await run('await tools.nope({})')
    expect(host.names).toEqual(['nope'])
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'ToolCallError: no tool named nope' } })
  })

  it('reports an uncaught error as runtime, with name, message and a stack in program.js positions', async () => {
    const { outcome } = await run('const x = 1\nthrow new TypeError("boom")')
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.error.kind).toBe('runtime')
    expect(outcome.error.message).toBe('TypeError: boom')
    // Line 1 of program.js is the function header; the body starts on line 2.
    expect(outcome.error.stack).toMatch(/program\.js:3:7/)
  })

  it('reports a throw of a non-error value', async () => {
    const { outcome } = await run('throw "plain"')
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: "Thrown: 'plain'" } })
  })

  it('reports JavaScript that does not parse as a compile error', async () => {
    const outcome = await sandbox.run({ ...request(''), js: '(async function () { return ) })' }, new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'compile' } })
    expect(!outcome.ok && outcome.error.message).toMatch(/SyntaxError/)
    expect(!outcome.ok && outcome.error.stack).toMatch(/program\.js:1:\d+/)
  })

  it('forwards console output to host.log, formatted, in order', async () => {
    const { outcome, host } = await run(`
      console.log('hello', { a: 1 }, [1, 2])
      console.warn('careful')
      await tools.noop()
      console.error(new Error('bad').message)
      return 1`)
    expect(outcome.ok).toBe(true)
    expect(host.logs).toEqual([
      { level: 'log', text: 'hello { a: 1 } [ 1, 2 ]' },
      { level: 'warn', text: 'careful' },
      { level: 'error', text: 'bad' },
    ])
  })

  it('delivers console output written before a tool call ahead of that call', async () => {
    const seen: string[] = []
    const host = new RecordingHost()
    const callTool = host.callTool.bind(host)
    host.callTool = (name, args) => {
      seen.push(`call ${name}`)
      return callTool(name, args)
    }
    host.log = (entries) => {
      for (const e of entries) seen.push(`log ${e.text}`)
    }
    await run(`console.log('one'); await tools.noop(); console.log('two'); return 0`, host)
    expect(seen).toEqual(['log one', 'call noop', 'log two'])
  })

  it('caps console output at maxOutputBytes and counts what it dropped', async () => {
    const { outcome, host } = await run(`for (let i = 0; i < 1000; i++) console.log('x'.repeat(99)); return 'done'`, undefined, {
      maxOutputBytes: 1000,
    })
    expect(outcome).toMatchObject({ ok: true, valueJson: '"done"' })
    const kept = host.logs.filter((l) => l.text.startsWith('x'))
    expect(kept).toHaveLength(10)
    expect(host.logs.at(-1)?.text).toMatch(/output cut/)
    expect(outcome.droppedOutputBytes).toBe(990 * 100)
  })

  it('reuses warm isolates without sharing anything between runs: many runs in a row all succeed', async () => {
    for (let i = 0; i < 30; i++) {
      const { outcome } = await run(`globalThis.n = (globalThis.n ?? 0) + 1; return globalThis.n + ${i}`)
      expect(outcome).toMatchObject({ ok: true, valueJson: String(1 + i) })
    }
  })

  it('refuses calls beyond the in-flight cap with EAGAIN instead of queueing them without bound', async () => {
    const { outcome, host } = await run(`
      const pending = []
      for (let i = 0; i < ${MAX_CALLS_IN_FLIGHT} + 50; i++) pending.push(tools.slow({ ms: 3000 }).then(() => 'ok', (e) => e.code))
      const codes = await Promise.all(pending)
      return [codes.filter((c) => c === 'ok').length, codes.filter((c) => c === 'EAGAIN').length]`)
    expect(outcome).toMatchObject({ ok: true, valueJson: `[${MAX_CALLS_IN_FLIGHT},50]` })
    expect(host.calls).toHaveLength(MAX_CALLS_IN_FLIGHT)
  })

  it('runs overlapping programs side by side, each with its own calls in order', async () => {
    const hosts = [new RecordingHost(), new RecordingHost(), new RecordingHost()]
    const outcomes = await Promise.all(
      hosts.map((host, i) =>
        sandbox.run(
          request(`const out = []
            for (let k = 0; k < 5; k++) out.push(await tools.slow({ ms: ${3 - i} * 3, value: ${i} * 10 + k }))
            return out`),
          host,
          never(),
        ),
      ),
    )
    outcomes.forEach((outcome, i) => {
      expect(outcome).toMatchObject({ ok: true, valueJson: JSON.stringify([0, 1, 2, 3, 4].map((k) => i * 10 + k)) })
      expect(hosts[i]?.calls.map((c) => c.args)).toEqual([0, 1, 2, 3, 4].map((k) => ({ ms: (3 - i) * 3, value: i * 10 + k })))
    })
  })
})

describe('isolate sandbox: starting', () => {
  it('reports sandbox_unavailable, not a crash, when the child entry does not exist', async () => {
    const broken = createIsolateSandbox({ childEntry: '/nonexistent/child.js' })
    await expect(broken.start()).resolves.toBeUndefined()
    const outcome = await broken.run(request('return 1'), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable', code: 'SANDBOX_UNAVAILABLE' } })
    expect(!outcome.ok && outcome.error.message).toMatch(/exited while starting/)
    await broken.close()
  })

  it('reports sandbox_unavailable after close', async () => {
    const closed = createIsolateSandbox()
    await closed.close()
    const outcome = await closed.run(request('return 1'), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable' } })
  })

  it('answers a run whose signal is already aborted without running it', async () => {
    const host = new RecordingHost()
    const controller = new AbortController()
    controller.abort()
    const outcome = await sandbox.run(request('await tools.noop(); return 1'), host, controller.signal)
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    expect(host.calls).toEqual([])
  })
})

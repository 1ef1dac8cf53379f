/**
 * How calls, answers, timers and console lines cross between the caller, the child and the isolate when
 * many happen at once: calls of one turn travel as one message, answers of one turn as one message and
 * one task in the isolate, zero-delay timers fire at the glue's tick. Real isolates in the real child
 * process (run `npm run build` first); the message count is read off the caller's side of the channel.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { MAX_CALLS_IN_FLIGHT } from '../../guest/limits.js'
import { M, type ToChild } from '../../sandbox/isolate/protocol.js'
import { SupervisedChild } from '../../sandbox/isolate/supervisor.js'
import type { Sandbox, SandboxHost } from '../../sandbox/types.js'
import type { LogEntry } from '../../vocabulary/types.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())
afterEach(() => vi.restoreAllMocks())

/** Holds every call until `release()`, then answers all of them in one turn, last call first. */
class HoldingHost implements SandboxHost {
  readonly logs: LogEntry[] = []
  readonly held: Array<{ args: string; answer: (text: string) => void }> = []
  callTool(_name: string, argsJson: string): Promise<string> {
    return new Promise((answer) => this.held.push({ args: argsJson, answer }))
  }
  log(entries: LogEntry[]): void {
    this.logs.push(...entries)
  }
  release(): void {
    for (const { args, answer } of [...this.held].reverse()) answer(JSON.stringify({ ok: true, value: JSON.parse(args) }))
    this.held.length = 0
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
}

describe('isolate sandbox: many calls at once', () => {
  it('answers released together, in reverse, each reach their own call, as one message', async () => {
    const sent = vi.spyOn(SupervisedChild.prototype, 'send')
    const host = new HoldingHost()
    const running = sandbox.run(
      request(`
        const out = await Promise.all(Array.from({ length: 200 }, (_, i) => tools.echo({ i })))
        return out.every((v, i) => v.i === i) ? out.length : out.map((v) => v.i)`),
      host,
      never(),
    )
    await until(() => host.held.length === 200)
    expect(host.held).toHaveLength(200)
    host.release()
    expect(await running).toMatchObject({ ok: true, valueJson: '200' })
    const results = sent.mock.calls.map(([m]) => m as ToChild).filter((m) => m[0] === M.result)
    // One turn's answers are one message (the old protocol sent one per call).
    expect(results.length).toBeLessThanOrEqual(2)
    expect(results.flatMap((m) => (m[0] === M.result ? m[2] : []))).toHaveLength(200)
  })

  it('a program that fires 5,000 calls without awaiting gets exactly the cap through and EAGAIN for the rest', async () => {
    const host = new RecordingHost()
    const outcome = await sandbox.run(
      request(`
        const pending = []
        for (let i = 0; i < 5000; i++) pending.push(tools.slow({ ms: 200, value: i }).then((v) => v === i ? 'ok' : 'wrong', (e) => e.code))
        const codes = await Promise.all(pending)
        return [codes.filter((c) => c === 'ok').length, codes.filter((c) => c === 'EAGAIN').length, codes.length]`),
      host,
      never(),
    )
    expect(outcome).toMatchObject({ ok: true, valueJson: `[${MAX_CALLS_IN_FLIGHT},${5000 - MAX_CALLS_IN_FLIGHT},5000]` })
    expect(host.calls).toHaveLength(MAX_CALLS_IN_FLIGHT)
  })

  it('a run aborted with a batch of calls in flight ends as aborted, and late answers harm nothing', async () => {
    const host = new HoldingHost()
    const controller = new AbortController()
    const running = sandbox.run(
      request('await Promise.all(Array.from({ length: 300 }, (_, i) => tools.echo({ i }))); return "no"'),
      host,
      controller.signal,
    )
    await until(() => host.held.length === 300)
    controller.abort()
    expect(await running).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    host.release()
    const next = await sandbox.run(request('return await tools.echo({ after: 1 })'), new RecordingHost(), never())
    expect(next).toMatchObject({ ok: true, valueJson: '{"after":1}' })
  })

  it('a run stopped by its time limit mid-batch ends as a timeout and the next run is clean', async () => {
    const host = new HoldingHost()
    const running = sandbox.run(
      request('await Promise.all(Array.from({ length: 300 }, (_, i) => tools.echo({ i }))); for (;;) {}', { timeoutMs: 300 }),
      host,
      never(),
    )
    await until(() => host.held.length === 300)
    host.release()
    expect(await running).toMatchObject({ ok: false, error: { kind: 'timeout' } })
    expect(await sandbox.run(request('return 7'), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: '7' })
  })
})

describe('isolate sandbox: the end of a run', () => {
  it('never loses console lines written just before the end, with or without calls', async () => {
    for (const body of [
      'for (let i = 0; i < 300; i++) console.log("line " + i); return 1',
      'await tools.noop(); for (let i = 0; i < 300; i++) console.log("line " + i); return 1',
      'setTimeout(() => { for (let i = 0; i < 300; i++) console.log("line " + i) }, 0); return 1',
      'tools.noop().then(() => { for (let i = 0; i < 300; i++) console.log("line " + i) }); return 1',
    ]) {
      const host = new RecordingHost()
      const outcome = await sandbox.run(request(body), host, never())
      expect(outcome, body).toMatchObject({ ok: true, valueJson: '1' })
      expect(
        host.logs.map((l) => l.text),
        body,
      ).toEqual(Array.from({ length: 300 }, (_, i) => `line ${i}`))
    }
  })

  it('zero-delay timers fire in order wherever they are armed, and a cleared one never fires', async () => {
    const host = new RecordingHost()
    const outcome = await sandbox.run(
      request(`
        const seen = []
        const cleared = setTimeout(() => seen.push('cleared'), 0)
        setTimeout(() => {
          seen.push('a')
          setTimeout(() => seen.push('c'), 0)
        }, 0)
        setTimeout(() => seen.push('b'), 0)
        clearTimeout(cleared)
        for (let i = 0; i < 50; i++) await new Promise((r) => setTimeout(r, 0))
        await tools.noop()
        await new Promise((r) => setTimeout(r, 0))
        seen.push('d')
        tools.noop().then(() => seen.push('late call'))
        setTimeout(() => seen.push('late timer'), 0)
        return seen`),
      host,
      never(),
    )
    // The value is read when the run goes idle: after the continuations and timers left behind by its return.
    expect(outcome.ok).toBe(true)
    const seen = JSON.parse(outcome.ok ? (outcome.valueJson ?? '[]') : '[]') as string[]
    expect(seen.slice(0, 4)).toEqual(['a', 'b', 'c', 'd'])
    // The late call's answer and the late timer race (a round trip to the host against one turn).
    expect(seen.slice(4).sort()).toEqual(['late call', 'late timer'])
  })
})

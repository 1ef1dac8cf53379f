/**
 * Runs of different callers never share a process: whatever kills one caller's process (an abort, an
 * out-of-memory kill, a kill for a stuck run) ends that caller's runs and nobody else's. Attacked with
 * real deaths of the real child (signals the kernel delivers, as V8's abort does), raced against the other
 * caller's runs and repeated; plus the pool's shape: a warm spare, a cap, idle retirement, a process per run.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox, type IsolateSandboxOptions } from '../../sandbox/isolate/index.js'
import type { SandboxOutcome } from '../../sandbox/types.js'
import { RecordingHost, isAlive, isolateChildPids, never, request } from './fixtures/isolate-host.js'

const opened: IsolateSandbox[] = []
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close()
})

async function open(options: IsolateSandboxOptions = {}): Promise<IsolateSandbox> {
  const sandbox = createIsolateSandbox(options)
  opened.push(sandbox)
  await sandbox.start()
  return sandbox
}

function runAs(
  sandbox: IsolateSandbox,
  callerId: string | undefined,
  body: string,
  limits = {},
  host = new RecordingHost(),
): Promise<SandboxOutcome> {
  return sandbox.run({ ...request(body, limits), ...(callerId !== undefined ? { callerId } : {}) }, host, never())
}

/** A host whose answers wait until the test opens it. */
class GatedHost extends RecordingHost {
  open!: () => void
  readonly #gate = new Promise<void>((r) => (this.open = r))
  override async callTool(name: string, argsJson: string): Promise<string> {
    const answer = super.callTool(name, argsJson)
    await this.#gate
    return answer
  }
}

/** A run that makes a chain of slow calls and returns their sum: long enough to be in flight during a kill. */
const WORK = `let sum = 0; for (let i = 0; i < 8; i++) sum += (await tools.slow({ ms: 15, value: i })); return sum`
const WORK_VALUE = '28'

async function waitUntil(predicate: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
  expect(predicate()).toBe(true)
}

describe('isolate sandbox: one process per caller', () => {
  it('two callers run in two processes; runs of one caller share its process', async () => {
    const sandbox = await open()
    await Promise.all([runAs(sandbox, 'a', WORK), runAs(sandbox, 'a', WORK), runAs(sandbox, 'b', WORK)])
    const a = sandbox.pidOf('a'),
      b = sandbox.pidOf('b')
    expect(a).toBeDefined()
    expect(b).toBeDefined()
    expect(a).not.toBe(b)
    expect(sandbox.pidOf()).toBeUndefined()
    expect(await runAs(sandbox, 'a', 'return 1')).toMatchObject({ ok: true })
    expect(sandbox.pidOf('a')).toBe(a)
  })

  for (const signal of ['SIGABRT', 'SIGKILL', 'SIGSEGV'] as const) {
    it(`caller A's process dies by ${signal} mid-run, over and over: every run of caller B succeeds`, async () => {
      const sandbox = await open()
      for (let round = 0; round < 4; round++) {
        const bRuns = Array.from({ length: 4 }, () => runAs(sandbox, 'b', WORK))
        const aHost = new RecordingHost()
        const aRuns = Array.from({ length: 3 }, () => runAs(sandbox, 'a', WORK, {}, aHost))
        // Kill at a different moment each round: before A's first call, after some, while B is mid-chain.
        await waitUntil(() => aHost.calls.length >= round * 2 && sandbox.pidOf('a') !== undefined)
        const victim = sandbox.pidOf('a')!
        expect(victim).not.toBe(sandbox.pidOf('b'))
        process.kill(victim, signal)
        const [a, b] = await Promise.all([Promise.all(aRuns), Promise.all(bRuns)])
        for (const outcome of b) expect(outcome, `round ${round}`).toEqual({ ok: true, valueJson: WORK_VALUE, droppedOutputBytes: 0 })
        for (const outcome of a) {
          // A run that was done before the signal landed is fine; none may claim B's fate or hang.
          if (!outcome.ok) expect(outcome.error.message).toMatch(new RegExp(`sandbox process died \\(signal ${signal}\\)`))
        }
        expect(
          a.some((o) => !o.ok),
          `round ${round}: A's runs died with their process`,
        ).toBe(true)
        // A's next run gets a fresh process; B kept its own throughout.
        expect(await runAs(sandbox, 'a', 'return 2')).toMatchObject({ ok: true, valueJson: '2' })
        expect(sandbox.pidOf('a')).not.toBe(victim)
        expect(isAlive(victim)).toBe(false)
      }
    }, 60_000)
  }

  it('a caller that loops, blows its memory or floods its console affects nobody else', async () => {
    const sandbox = await open()
    const attacks = [
      runAs(sandbox, 'evil', 'for (;;) {}', { timeoutMs: 800 }),
      runAs(sandbox, 'evil', 'const a = []; for (;;) a.push(new Array(1e6).fill(1.5))', { memoryMb: 32 }),
      runAs(sandbox, 'evil', "for (;;) console.log('x'.repeat(1e4))", { timeoutMs: 800, maxOutputBytes: 1000 }),
      runAs(sandbox, 'evil', '(function spin() { Promise.resolve().then(spin) })(); await new Promise(() => {})', { timeoutMs: 800 }),
    ]
    const good = Array.from({ length: 6 }, () => runAs(sandbox, 'good', WORK))
    const outcomes = await Promise.all(attacks)
    expect(outcomes.map((o) => !o.ok && o.error.kind)).toEqual(['timeout', 'memory', 'timeout', 'timeout'])
    for (const outcome of await Promise.all(good)) expect(outcome).toEqual({ ok: true, valueJson: WORK_VALUE, droppedOutputBytes: 0 })
  }, 30_000)
})

describe('isolate sandbox: the pool of processes', () => {
  it('keeps a warm spare once callers are told apart, so a new caller does not wait for a spawn', async () => {
    const sandbox = await open()
    expect(sandbox.processes).toEqual({ leased: 0, spare: true })
    await runAs(sandbox, 'a', 'return 1')
    await waitUntil(() => isolateChildPids().length === 2)
    // Ready, not only spawned (a new caller with the spare still starting gets whichever child is ready first).
    expect(await sandbox.ready?.()).toBeUndefined()
    const before = new Set(isolateChildPids())
    expect(sandbox.processes).toEqual({ leased: 1, spare: true })
    await runAs(sandbox, 'b', 'return 1')
    // B took the spare that was already running; a new spare is being made.
    expect(before.has(sandbox.pidOf('b')!)).toBe(true)
    expect(sandbox.processes).toEqual({ leased: 2, spare: true })
  })

  it('a spare killed before any caller took it is replaced: the sandbox stays ready, the next caller runs', async () => {
    const sandbox = await open()
    await runAs(sandbox, 'a', 'return 1')
    await waitUntil(() => isolateChildPids().length === 2)
    const spare = isolateChildPids().find((pid) => pid !== sandbox.pidOf('a'))!
    // Killed from outside (an OOM killer, an operator): nobody's run was in it.
    process.kill(spare, 'SIGKILL')
    await waitUntil(() => !isAlive(spare))
    expect(await sandbox.ready?.()).toBeUndefined()
    await waitUntil(() => isolateChildPids().length === 2)
    expect(isolateChildPids()).not.toContain(spare)
    expect(await runAs(sandbox, 'b', 'return 2')).toMatchObject({ ok: true, valueJson: '2' })
    expect(sandbox.pidOf('b')).not.toBe(spare)
  })

  it('a runtime that never names a caller keeps exactly one process', async () => {
    const sandbox = await open()
    await Promise.all(Array.from({ length: 6 }, () => runAs(sandbox, undefined, WORK)))
    expect(isolateChildPids().length).toBe(1)
    expect(sandbox.processes).toEqual({ leased: 1, spare: false })
  })

  it('past the cap, a new caller waits for an idle process and takes its place (never shares)', async () => {
    const sandbox = await open({ maxProcesses: 2 })
    const aHost = new GatedHost(),
      bHost = new GatedHost()
    const a = runAs(sandbox, 'a', 'await tools.noop(); return "a"', {}, aHost)
    const b = runAs(sandbox, 'b', 'await tools.noop(); return "b"', {}, bHost)
    await waitUntil(() => aHost.calls.length === 1 && bHost.calls.length === 1, 30_000)
    const [pa, pb] = [sandbox.pidOf('a')!, sandbox.pidOf('b')!]
    const cHost = new RecordingHost()
    const c = runAs(sandbox, 'c', 'await tools.echo({ c: 1 }); return "c"', {}, cHost)
    await new Promise((r) => setTimeout(r, 300))
    expect(cHost.calls).toEqual([]) // waiting: both processes are busy with their own callers
    aHost.open()
    expect(await a).toMatchObject({ ok: true, valueJson: '"a"' })
    expect(await c).toMatchObject({ ok: true, valueJson: '"c"' })
    const pc = sandbox.pidOf('c')!
    expect([pa, pb]).not.toContain(pc)
    expect(sandbox.pidOf('a')).toBeUndefined() // A, idle the longest, was retired for C
    await waitUntil(() => !isAlive(pa))
    bHost.open()
    expect(await b).toMatchObject({ ok: true, valueJson: '"b"' })
    expect(sandbox.pidOf('b')).toBe(pb)
  })

  it('more callers taking turns than processes: the callers that have a process keep it', async () => {
    // Three callers in turn over two processes (an MCP server with more live sessions than processes).
    // Retiring the caller idle the longest retired exactly the one whose turn came next: every run a cold
    // spawn (30 processes for 30 runs). Now the overflow shares one process and the first caller keeps its own.
    const sandbox = await open({ maxProcesses: 2 })
    const pids = new Map<string, Set<number>>([
      ['a', new Set()],
      ['b', new Set()],
      ['c', new Set()],
    ])
    for (let round = 0; round < 10; round++) {
      for (const caller of ['a', 'b', 'c']) {
        expect(await runAs(sandbox, caller, `return "${caller}${round}"`)).toMatchObject({ ok: true, valueJson: `"${caller}${round}"` })
        pids.get(caller)!.add(sandbox.pidOf(caller)!)
      }
    }
    expect(pids.get('a')!.size).toBe(1)
    const all = new Set([...pids.values()].flatMap((s) => [...s]))
    expect(all.size).toBeLessThanOrEqual(2 + 2 * 10)
    await waitUntil(() => isolateChildPids().length <= 3) // two serving and the spare: the retired ones ended
  })

  it('a caller gone quiet makes room before busy callers take each other’s places', async () => {
    // A runtime's own caller serves a warm-up, then named callers take over (the bench's 8 callers, a server
    // whose sessions start after its first runs). Choosing by runs served alone kept the quiet caller that
    // had served the most, and the busy named callers retired each other on every run.
    const sandbox = await open({ maxProcesses: 2 })
    for (let i = 0; i < 15; i++) expect(await runAs(sandbox, undefined, `return ${i}`)).toMatchObject({ ok: true })
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    const pids = new Map<string, Set<number>>([
      ['a', new Set()],
      ['b', new Set()],
    ])
    for (let round = 0; round < 8; round++) {
      for (const caller of ['a', 'b']) {
        expect(await runAs(sandbox, caller, `return "${caller}${round}"`)).toMatchObject({ ok: true, valueJson: `"${caller}${round}"` })
        pids.get(caller)!.add(sandbox.pidOf(caller)!)
      }
    }
    expect([pids.get('a')!.size, pids.get('b')!.size]).toEqual([1, 1])
    expect(sandbox.pidOf()).toBeUndefined() // the quiet one was retired for them, once
  })

  it('a caller waiting for a process can be aborted', async () => {
    const sandbox = await open({ maxProcesses: 1 })
    const busy = runAs(sandbox, 'a', 'await tools.slow({ ms: 1000 }); return 1')
    await waitUntil(() => sandbox.pidOf('a') !== undefined)
    const controller = new AbortController()
    const waiting = sandbox.run({ ...request('return 2'), callerId: 'b' }, new RecordingHost(), controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect(await waiting).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    expect(await busy).toMatchObject({ ok: true })
  })

  it("retires a named caller's idle process", async () => {
    const sandbox = await open({ idleMs: 200 })
    await runAs(sandbox, 'a', 'return 1')
    const pid = sandbox.pidOf('a')!
    await waitUntil(() => !isAlive(pid), 5000)
    expect(sandbox.pidOf('a')).toBeUndefined()
    expect(await runAs(sandbox, 'a', 'return 2')).toMatchObject({ ok: true, valueJson: '2' })
  })

  it("isolation 'run': every run in a process of its own, gone when the run ends", async () => {
    const sandbox = await open({ isolation: 'run' })
    // Every run holds its call until all three are in flight, so all three processes exist at once.
    let open3!: () => void
    const allIn = new Promise<void>((r) => (open3 = r))
    class Barrier extends RecordingHost {
      override async callTool(name: string, argsJson: string): Promise<string> {
        const answer = super.callTool(name, argsJson)
        await allIn
        return answer
      }
    }
    const hosts = Array.from({ length: 3 }, () => new Barrier())
    const runs = hosts.map((h) => runAs(sandbox, 'same-caller', 'await tools.noop(); return 1', {}, h))
    await waitUntil(() => hosts.every((h) => h.calls.length === 1), 30_000)
    const seen = new Set(isolateChildPids())
    open3()
    expect(seen.size).toBeGreaterThanOrEqual(3)
    for (const outcome of await Promise.all(runs)) expect(outcome).toMatchObject({ ok: true })
    await waitUntil(() => isolateChildPids().length <= 1) // only the spare for the next run
  })
})

describe('through the runtime: RunCodeOptions.caller', () => {
  it("one caller's process killed mid-run: its run is a typed runtime error, the other caller's run and calls complete", async () => {
    const { createRuntime } = await import('../../runtime/index.js')
    let release!: () => void
    const started = new Promise<void>((r) => (release = r))
    const rt = await createRuntime({
      typecheck: 'off',
      tools: [
        {
          name: 'hold',
          description: 'Says it started, then waits.',
          parameters: { type: 'object' },
          execute: async () => {
            release()
            await new Promise((r) => setTimeout(r, 300))
            return 'held'
          },
        },
        {
          name: 'wait',
          description: 'Waits.',
          parameters: { type: 'object' },
          execute: async () => {
            await new Promise((r) => setTimeout(r, 300))
            return 'waited'
          },
        },
        { name: 'echo', description: 'Echoes.', parameters: { type: 'object' }, execute: (a: unknown) => a },
      ],
    })
    try {
      const sandbox = rt.sandbox as IsolateSandbox
      const a = rt.runCode('await tools.hold({}); return "a"', { caller: 'session-a' })
      const b = rt.runCode(
        'const xs = []; for (let i = 0; i < 20; i++) xs.push((await tools.echo({ i })).i); await tools.wait({}); return xs.length',
        { caller: 'session-b' },
      )
      await started
      process.kill(sandbox.pidOf('session-a')!, 'SIGKILL')
      const [ra, rb] = await Promise.all([a, b])
      expect(ra.error?.kind).toBe('runtime')
      expect(ra.error?.message).toMatch(/sandbox process died/)
      expect(rb.error, rb.observation).toBeNull()
      expect(rb.value).toBe(20)
      expect(rb.calls.every((c) => c.ok)).toBe(true)
    } finally {
      await rt.close()
    }
  })
})

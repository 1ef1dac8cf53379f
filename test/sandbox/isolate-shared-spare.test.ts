/**
 * `shareSpare`: one warm child per host process, shared by the sandboxes that ask for it, so a new sandbox
 * in a process that already has one starts its first run without spawning. What it must never do: hand a
 * child that served one sandbox's caller to another sandbox, or leave a process behind once they are closed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox, type IsolateSandboxOptions } from '../../sandbox/isolate/index.js'
import { isAlive, isolateChildPids, never, RecordingHost, request } from './fixtures/isolate-host.js'

const opened: IsolateSandbox[] = []
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close()
})

async function open(options: IsolateSandboxOptions = { shareSpare: true }): Promise<IsolateSandbox> {
  const sandbox = createIsolateSandbox(options)
  opened.push(sandbox)
  await sandbox.start()
  return sandbox
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50))
}

/** What a program can see of the process it runs in: a global left by an earlier run would show here. */
const PROBE = 'const seen = globalThis.__mark ?? null; globalThis.__mark = "left by an earlier run"; return seen'

describe('isolate sandbox: a spare child shared across sandboxes (shareSpare)', () => {
  it("a second sandbox's first run takes the spare that was already running, not a spawn, and not the first sandbox's process", async () => {
    const a = await open()
    expect((await a.run(request(PROBE), new RecordingHost(), never())).ok).toBe(true)
    const aPid = a.pidOf()!
    // The spare starts beside the first sandbox's child.
    await until(() => isolateChildPids().length === 2)
    const spare = isolateChildPids().find((pid) => pid !== aPid)
    expect(spare).toBeDefined()
    const b = await open()
    const outcome = await b.run(request(PROBE), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true, valueJson: 'null' })
    expect(b.pidOf()).toBe(spare)
    expect(b.pidOf()).not.toBe(aPid)
  })

  it('never hands a used child on: callers of different sandboxes, raced, each in a process of its own', async () => {
    const sandboxes = await Promise.all([open(), open(), open()])
    for (let round = 0; round < 3; round++) {
      const outcomes = await Promise.all(
        sandboxes.flatMap((s) =>
          ['x', 'y'].map((caller) => s.run({ ...request('return 1'), callerId: caller }, new RecordingHost(), never())),
        ),
      )
      expect(outcomes.every((o) => o.ok)).toBe(true)
    }
    const pids = sandboxes.flatMap((s) => ['x', 'y'].map((caller) => s.pidOf(caller)))
    expect(pids.every((pid) => pid !== undefined)).toBe(true)
    expect(new Set(pids).size).toBe(pids.length)
  })

  it('a spare that dies before anyone takes it is replaced by a spawn; the run still works', async () => {
    const a = await open()
    await a.run(request('return 1'), new RecordingHost(), never())
    await until(() => isolateChildPids().length === 2)
    const spare = isolateChildPids().find((pid) => pid !== a.pidOf())!
    process.kill(spare, 'SIGKILL')
    await until(() => !isAlive(spare))
    const b = await open()
    expect(await b.run(request('return 2'), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: '2' })
    expect(b.pidOf()).not.toBe(spare)
    expect(b.pidOf()).not.toBe(a.pidOf())
  })

  it('closing the last sandbox that shares it ends the spare too: no process is left', async () => {
    const a = await open()
    const b = await open()
    await Promise.all([a.run(request('return 1'), new RecordingHost(), never()), b.run(request('return 1'), new RecordingHost(), never())])
    await until(() => isolateChildPids().length === 3)
    await a.close()
    expect(isolateChildPids().length).toBeGreaterThan(0)
    await b.close()
    expect(isolateChildPids()).toEqual([])
  })

  it('sandboxes opened while a taken spare waits for its replacement each get a process of their own, and the replacement still comes', async () => {
    const a = await open()
    await a.run(request('return 1'), new RecordingHost(), never())
    await until(() => isolateChildPids().length === 2)
    // b takes the spare (its replacement waits); c and d come before it starts: fresh children, not b's or a's.
    const [b, c, d] = await Promise.all([open(), open(), open()])
    const outcomes = await Promise.all([b, c, d].map((s) => s.run(request(PROBE), new RecordingHost(), never())))
    expect(outcomes.every((o) => o.ok && o.valueJson === 'null')).toBe(true)
    const pids = [a, b, c, d].map((s) => s.pidOf())
    expect(new Set(pids).size).toBe(4)
    // One spare again beside the four: nobody's.
    await until(() => isolateChildPids().length === 5)
    const spare = isolateChildPids().filter((pid) => !pids.includes(pid))
    expect(spare).toHaveLength(1)
  })

  it('closing every sharer before a taken spare is replaced starts no replacement: no process is left', async () => {
    const a = await open()
    await a.run(request('return 1'), new RecordingHost(), never())
    await until(() => isolateChildPids().length === 2)
    const b = await open() // takes the spare; its replacement is due a little later
    await b.run(request('return 1'), new RecordingHost(), never())
    await a.close()
    await b.close()
    expect(isolateChildPids()).toEqual([])
    await new Promise((r) => setTimeout(r, 600))
    expect(isolateChildPids()).toEqual([])
  })

  it('a sandbox without shareSpare neither takes nor starts a shared spare', async () => {
    const plain = await open({})
    await plain.run(request('return 1'), new RecordingHost(), never())
    await new Promise((r) => setTimeout(r, 300))
    expect(isolateChildPids()).toEqual([plain.pidOf()])
  })
})

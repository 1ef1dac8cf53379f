/**
 * A prestarted child (spare-child.ts `prestartChild`, what `codeact run` starts before it loads the
 * runtime): taken by the first sandbox that spawns one with the same entry and config, for one caller,
 * and never again; ended by `dropPrestarted` when nobody took it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { resolveChildEntry } from '../../sandbox/isolate/child-path.js'
import { createIsolateSandbox, type IsolateSandbox, type IsolateSandboxOptions } from '../../sandbox/isolate/index.js'
import { DEFAULT_CHILD_CONFIG } from '../../sandbox/isolate/protocol.js'
import { dropPrestarted, prestartChild } from '../../sandbox/isolate/spare-child.js'
import { isolateChildPids, never, RecordingHost, request } from './fixtures/isolate-host.js'

const opened: IsolateSandbox[] = []
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close()
  await dropPrestarted()
})

function open(options: IsolateSandboxOptions = {}): IsolateSandbox {
  const sandbox = createIsolateSandbox(options)
  opened.push(sandbox)
  return sandbox
}

async function prestarted(): Promise<number> {
  const entry = resolveChildEntry()
  if (!entry.ok) throw new Error(entry.message)
  prestartChild(entry.path, DEFAULT_CHILD_CONFIG)
  for (let i = 0; i < 300 && isolateChildPids().length === 0; i++) await new Promise((r) => setTimeout(r, 50))
  const [pid] = isolateChildPids()
  expect(pid).toBeDefined()
  return pid!
}

const PROBE = 'const seen = globalThis.__mark ?? null; globalThis.__mark = "left by an earlier run"; return seen'

describe('isolate sandbox: a child prestarted before the runtime loads', () => {
  it('is the first caller’s process (in place of a spawn), and only that caller’s: the next caller and the next sandbox get processes of their own', async () => {
    const pid = await prestarted()
    const a = open()
    expect(await a.run(request(PROBE), new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: 'null' })
    expect(a.pidOf()).toBe(pid)
    // The prestarted child was used in place of a spawn: still one process.
    expect(isolateChildPids()).toEqual([pid])
    // Named callers from here on (the pool keeps a spare of its own for them): none gets the first caller's.
    expect(await a.run({ ...request(PROBE), callerId: 'y' }, new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: 'null' })
    expect(a.pidOf('y')).not.toBe(pid)
    const b = open({ shareSpare: true })
    expect(await b.run({ ...request(PROBE), callerId: 'x' }, new RecordingHost(), never())).toMatchObject({ ok: true, valueJson: 'null' })
    expect(b.pidOf('x')).not.toBe(pid)
    expect(b.pidOf('x')).not.toBe(a.pidOf('y'))
    expect(a.pidOf()).toBe(pid)
  })

  it('is not taken by a sandbox of another configuration, and is ended when nobody took it', async () => {
    const pid = await prestarted()
    const other = open({ warmIsolates: 2 })
    expect((await other.run(request('return 1'), new RecordingHost(), never())).ok).toBe(true)
    expect(other.pidOf()).not.toBe(pid)
    await other.close()
    expect(isolateChildPids()).toEqual([pid])
    await dropPrestarted()
    expect(isolateChildPids()).toEqual([])
  })
})

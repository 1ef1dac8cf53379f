/**
 * The framed pipe (sandbox/isolate/frame.ts, index.ts) after a run's `done`, from the side of a child that keeps
 * talking: a call or a line for a run that is over must never reach that run's host (its tools would run after
 * its result was given), whether it comes in the same write as the `done`, just behind it, or while the next run
 * is going on in the same child; the next run gets only its own. A real stand-in child on the real pipe, spawned
 * through the real supervisor (as test/sandbox/isolate-protocol.test.ts does for garbage and huge frames).
 *
 * A program cannot write the pipe itself (no process, no fd, no require in its realm:
 * test/sandbox/isolate-isolation.test.ts), so this is what a broken or subverted child could do at most.
 *
 * What breaks them: index.ts keeping a finished run in its table (#finish's delete) and dispatching `M.call`
 * for a settled one (#onMessage's `run.settled` check) — two locks; with both gone all three fail (checked).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from '../sandbox/fixtures/isolate-host.js'
import { standInChild } from '../sandbox/fixtures/stand-in-child.js'

const dir = mkdtempSync(join(tmpdir(), 'codeact-afterdone-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A stand-in child (sandbox/fixtures/stand-in-child.ts); `onRun` runs with `n`, the run's count (0-based). */
function fakeChild(onRun: string): string {
  return standInChild(dir, {
    helpers: `const done = (id, value) => frame([M.done, id, { ok: true, valueJson: JSON.stringify(value), droppedOutputBytes: 0 }, undefined, 1])
const call = (id, name, text) => frame([M.call, id, [[0, name, '{}'], [1, name, '{}']], [{ level: 'log', text }]])
const line = (id, text) => frame([M.log, id, [{ level: 'log', text }]])
let runs = 0`,
    onRun: `const n = runs++; ${onRun}`,
  })
}

async function twoRuns(onRun: string): Promise<{ hosts: RecordingHost[]; values: unknown[] }> {
  const sandbox = createIsolateSandbox({ childEntry: fakeChild(onRun), warmIsolates: 0 })
  const hosts = [new RecordingHost(), new RecordingHost()]
  const values: unknown[] = []
  try {
    for (const host of hosts) {
      const outcome = await sandbox.run(request('return 1', { timeoutMs: 20_000 }), host, never())
      values.push(outcome.ok ? JSON.parse(outcome.valueJson ?? 'null') : outcome.error.kind)
    }
    // Time for anything the child sends late to arrive and (wrongly) be dispatched.
    await new Promise((r) => setTimeout(r, 300))
  } finally {
    await sandbox.close()
  }
  return { hosts, values }
}

describe('the pipe after done: nothing of a finished run reaches its host', () => {
  it('a call and a line in the same write as the done, right behind it', async () => {
    const { hosts, values } = await twoRuns(
      `w(Buffer.concat([done(id, 'run ' + n), call(id, 'echo', 'late line'), line(id, 'later line')]))`,
    )
    expect(values).toEqual(['run 0', 'run 1'])
    for (const host of hosts) {
      expect(host.calls).toEqual([])
      expect(host.logs).toEqual([])
    }
  })

  it("a call for the last run sent while the next one is going on: neither run's host sees it, the next run keeps its own", async () => {
    // Run 0 ends at once and, 100 ms later, sends calls for its id; run 1 makes its own call then ends after 400 ms.
    const { hosts, values } = await twoRuns(`
      if (n === 0) { w(done(id, 'first')); setTimeout(() => w(call(id, 'echo', 'stale')), 100) }
      else { w(frame([M.call, id, [[0, 'noop', '{}']], [{ level: 'log', text: 'own' }]])); setTimeout(() => w(done(id, 'second')), 400) }`)
    expect(values).toEqual(['first', 'second'])
    expect(hosts[0]?.calls).toEqual([])
    expect(hosts[0]?.logs).toEqual([])
    expect(hosts[1]?.names).toEqual(['noop'])
    expect(hosts[1]?.logs.map((l) => l.text)).toEqual(['own'])
  })

  it('a second done for a finished run, then a call for it: the first outcome stands and nothing is dispatched', async () => {
    const { hosts, values } = await twoRuns(`w(done(id, 'first of ' + n)); w(done(id, 'second of ' + n)); w(call(id, 'echo', 'after two'))`)
    expect(values).toEqual(['first of 0', 'first of 1'])
    for (const host of hosts) expect(host.calls).toEqual([])
  })
})

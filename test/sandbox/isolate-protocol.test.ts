/**
 * The caller's side of the isolate protocol (sandbox/isolate/protocol.ts, frames of frame.ts) against a child
 * that breaks it: a real child process (a stand-in for the isolate child, spawned through the real
 * supervisor, writing on the real pipe). Well-formed frames that are not for the run are dropped; frames
 * split into single bytes or many in one write read as written; a child that writes garbage, a frame
 * claiming 4 GB or a frame that does not decode is killed and its run ends `runtime` saying so. The caller
 * never throws.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { SandboxOutcome } from '../../sandbox/types.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'
import { standInChild } from './fixtures/stand-in-child.js'

const dir = mkdtempSync(join(tmpdir(), 'codeact-protocol-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * A stand-in child (fixtures/stand-in-child.ts) that for each run calls `onRun(id, w)`, then, once its call is
 * answered, `onResult(id, w)`; `rawDone(id, json)` is a done frame whose outcome is any JSON text.
 */
function fakeChild(
  onRun: string,
  onResult = 'w(frame([M.done, id, { ok: true, valueJson: \'"answered"\', droppedOutputBytes: 0 }, undefined, 1]))',
): string {
  return standInChild(dir, {
    helpers: `const f64 = (n) => { const b = Buffer.alloc(8); b.writeDoubleLE(n); return b }
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b }
const withLength = (body) => Buffer.concat([u32(body.length), body])
const rawDone = (id, json) => withLength(Buffer.concat([Buffer.from([M.done]), f64(id), Buffer.from([2, 0]), u32(Buffer.byteLength(json)), Buffer.from(json), Buffer.from([2]), f64(1)]))
const call = (id) => frame([M.call, id, [[0, 'noop', '{}']], [{ level: 'log', text: 'before the call' }]])`,
    onRun,
    onResult,
  })
}

async function runIn(entry: string, host = new RecordingHost()): Promise<SandboxOutcome> {
  const sandbox = createIsolateSandbox({ childEntry: entry, warmIsolates: 0 })
  try {
    return await sandbox.run(request('return 1', { timeoutMs: 20_000 }), host, never())
  } finally {
    await sandbox.close()
  }
}

/** Frames for runs that are not this one, and a second ready: well-formed, and nothing for this run. */
const NOT_FOR_THIS_RUN = `[
  frame([M.done, id + 1000, { ok: true, valueJson: '"wrong"', droppedOutputBytes: 0 }, undefined, 1]),
  frame([M.call, id + 1000, [[0, 'echo', '{}']], undefined]),
  frame([M.log, id + 1000, [{ level: 'log', text: 'not mine' }]]),
  frame([M.ready, 1]),
]`

describe('isolate sandbox: a child that breaks the protocol', () => {
  it('drops well-formed frames for other runs, answers the one call of this run, and takes the outcome', async () => {
    const host = new RecordingHost()
    const outcome = await runIn(fakeChild(`for (const f of ${NOT_FOR_THIS_RUN}) w(f); w(call(id))`), host)
    expect(outcome).toMatchObject({ ok: true, valueJson: '"answered"' })
    expect(host.calls.map((c) => c.name)).toEqual(['noop'])
    expect(host.logs.map((l) => l.text)).toEqual(['before the call'])
  })

  it('a done whose outcome is not an outcome ends the run as a runtime error', async () => {
    for (const json of ['null', '"ok"', '42', '{"valueJson":"1"}', '[]']) {
      const outcome = await runIn(fakeChild(`w(rawDone(id, ${JSON.stringify(json)}))`))
      expect(outcome, json).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/unreadable outcome/) } })
    }
  })
})

describe('isolate sandbox: the frames on the pipe, whatever the chunks', () => {
  it('every frame of a run written one byte at a time', async () => {
    const bytewise = `async (bytes) => { for (const b of bytes) { w(Buffer.from([b])); await new Promise((r) => setImmediate(r)) } }`
    const host = new RecordingHost()
    const outcome = await runIn(
      fakeChild(
        `void (${bytewise})(Buffer.concat([...${NOT_FOR_THIS_RUN}, call(id)]))`,
        `void (${bytewise})(frame([M.done, id, { ok: true, valueJson: '"bytewise"', droppedOutputBytes: 0 }, [{ level: 'warn', text: 'é😀' }], 1]))`,
      ),
      host,
    )
    expect(outcome).toMatchObject({ ok: true, valueJson: '"bytewise"' })
    expect(host.calls).toHaveLength(1)
    expect(host.logs.map((l) => l.text)).toEqual(['before the call', 'é😀'])
  })

  it('many frames in one write, the outcome among them', async () => {
    const host = new RecordingHost()
    const outcome = await runIn(
      fakeChild(
        `w(Buffer.concat([...${NOT_FOR_THIS_RUN}, ...Array.from({ length: 50 }, (_, i) => frame([M.log, id, [{ level: 'log', text: 'line ' + i }]])), call(id)]))`,
        `w(Buffer.concat([frame([M.log, id, [{ level: 'log', text: 'last' }]]), frame([M.done, id, { ok: true, valueJson: '"together"', droppedOutputBytes: 0 }, undefined, 1]), frame([M.log, id, [{ level: 'log', text: 'after the end' }]])]))`,
      ),
      host,
    )
    expect(outcome).toMatchObject({ ok: true, valueJson: '"together"' })
    expect(host.logs.map((l) => l.text)).toEqual([...Array.from({ length: 50 }, (_, i) => `line ${i}`), 'before the call', 'last'])
  })
})

describe('isolate sandbox: a child whose frames are broken is killed, and its run ends `runtime`', () => {
  const broken = (what: RegExp) => ({
    ok: false,
    error: {
      kind: 'runtime',
      message: expect.stringMatching(new RegExp(`^the sandbox process died \\(signal SIGKILL\\): ${what.source}`)),
    },
  })

  it('garbage on the pipe', async () => {
    const started = performance.now()
    expect(await runIn(fakeChild(`w(Buffer.from('this is not a frame at all'))`))).toMatchObject(
      broken(/it broke the protocol: a frame of unknown kind 32/),
    )
    // Refused from its first bytes, not after the 20 s timeout (its first four bytes claim 1.9 GB).
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('a frame claiming 4 GB', async () => {
    expect(await runIn(fakeChild(`w(Buffer.concat([u32(4_000_000_000), Buffer.from([M.call]), Buffer.alloc(100)]))`))).toMatchObject(
      broken(/it broke the protocol: a frame of 4000000000 bytes/),
    )
  })

  it('a frame whose body does not decode (a string running past its end), after a good call', async () => {
    const bad = `withLength(Buffer.concat([Buffer.from([M.log]), f64(id), Buffer.from([0]), u32(1), Buffer.from([0, 0]), u32(1000), Buffer.from('short')]))`
    const host = new RecordingHost()
    expect(await runIn(fakeChild(`w(call(id))`, `w(${bad})`), host)).toMatchObject(
      broken(/it sent a malformed message: a field runs past the end/),
    )
    expect(host.calls).toHaveLength(1)
  })

  it('a broken child while starting: the run is sandbox_unavailable, saying why', async () => {
    const path = join(dir, 'broken-at-start.mjs')
    writeFileSync(
      path,
      `import { Socket } from 'node:net'\nnew Socket({ fd: 3, readable: true, writable: true }).write(Buffer.from('garbage!'))\nsetInterval(() => {}, 1000)\n`,
    )
    expect(await runIn(path)).toMatchObject({
      ok: false,
      error: {
        kind: 'sandbox_unavailable',
        message: expect.stringMatching(/killed while starting: it broke the protocol: a frame of unknown kind/),
      },
    })
  })
})

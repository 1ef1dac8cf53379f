/**
 * The caller's side of the isolate protocol (sandbox/isolate/protocol.ts) against a child that breaks it:
 * a real child process (a stand-in for the isolate child, spawned through the real supervisor) that answers
 * a run with malformed messages before it keeps to the protocol. The caller drops what it cannot read and
 * never crashes; a finished run whose outcome is unreadable is a runtime error, not a throw.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { M } from '../../sandbox/isolate/protocol.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

const dir = mkdtempSync(join(tmpdir(), 'codeact-protocol-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A child that, for each run, sends `junk` (JSON-encoded here), then one well-formed call, and ends the run with `done` once it is answered. */
function brokenChild(junk: unknown[], done: unknown): string {
  const path = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(
    path,
    `const M = ${JSON.stringify(M)}
const junk = ${JSON.stringify(junk)}
process.on('message', (m) => {
  if (!Array.isArray(m)) return
  if (m[0] === M.run) {
    const id = m[1]
    for (const j of junk) process.send(JSON.parse(JSON.stringify(j).replaceAll('"ID"', String(id))))
    process.send([M.call, id, [[0, 'noop', '{}']], undefined])
  } else if (m[0] === M.result) {
    process.send([M.done, m[1], ${JSON.stringify(done)}, undefined, 1])
  }
})
process.on('disconnect', () => process.exit(0))
process.send([M.ready, process.pid])
`,
  )
  return path
}

const JUNK = [
  null,
  'text',
  { t: 'done', id: 'ID', outcome: { ok: true, valueJson: '"wrong"', droppedOutputBytes: 0 } },
  [M.done],
  [M.call, 'ID', 'not a list', undefined],
  [M.call, 'ID', [5, null, 'x', [1], ['name', 2, 3], [0, 7, '{}'], [0, 'noop', {}]], undefined],
  [M.log, 'ID', 'not a list'],
  [99, 'ID'],
]

describe('isolate sandbox: a child that breaks the protocol', () => {
  it('drops every malformed message, answers the one well-formed call, and takes the outcome', async () => {
    const entry = brokenChild(JUNK, { ok: true, valueJson: '"answered"', droppedOutputBytes: 0 })
    const sandbox = createIsolateSandbox({ childEntry: entry, warmIsolates: 0 })
    try {
      const host = new RecordingHost()
      const outcome = await sandbox.run(request('return 1'), host, never())
      expect(outcome).toMatchObject({ ok: true, valueJson: '"answered"' })
      expect(host.calls.map((c) => c.name)).toEqual(['noop'])
    } finally {
      await sandbox.close()
    }
  })

  it('a done whose outcome is not an outcome ends the run as a runtime error', async () => {
    for (const done of [null, 'ok', 42, { valueJson: '1' }, []]) {
      const sandbox = createIsolateSandbox({ childEntry: brokenChild([], done), warmIsolates: 0 })
      try {
        const outcome = await sandbox.run(request('return 1'), new RecordingHost(), never())
        expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/unreadable outcome/) } })
      } finally {
        await sandbox.close()
      }
    }
  })
})

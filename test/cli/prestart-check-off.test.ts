/**
 * `codeact run --typecheck off` prestarts the checker thread as the check-on run does (bin/codeact.mjs →
 * cli/prestart.ts): the program is prepared there (program/prepare.ts), so the host's thread parses nothing
 * of it, and the run takes the thread already started instead of starting one. (A file of its own:
 * prestart runs once per process.)
 */
import { afterAll, describe, expect, it } from 'vitest'
import { prestart, prestartFromArgv } from '../../cli/prestart.js'
import { checkInPool, poolRequestsPosted, poolThreadsStarted } from '../../program/typecheck-pool.js'
import { createRuntime } from '../../runtime/create-runtime.js'

afterAll(async () => {
  await prestart(undefined)()
})

describe('codeact run --typecheck off: what is started before the CLI loads', () => {
  it('starts the checker thread, and the run is prepared in it with one request', async () => {
    prestartFromArgv(['job.ts', '--typecheck', 'off', '--sandbox=docker'])
    expect(poolThreadsStarted()).toBe(1)
    // Answered after the prestart's own request (one thread, in order): from here on, only the run's count.
    await checkInPool(undefined, 'return 0', 60_000)
    const before = poolRequestsPosted()
    const rt = await createRuntime({ typecheck: 'off' })
    try {
      const r = await rt.runCode('const xs = [1, 2, 3]\nxs.length')
      expect(r.value, r.observation).toBe(3)
      expect(poolRequestsPosted()).toBe(before + 1)
    } finally {
      await rt.close()
    }
  })
})

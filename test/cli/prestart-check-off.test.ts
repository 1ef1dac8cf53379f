/**
 * `codeact run --typecheck off` prestarts no checker thread (bin/codeact.mjs → cli/prestart.ts): it loads the
 * in-host prepare's parsers instead, and the run's program (admitted by the gate) is prepared in the host's
 * thread — the process never starts a thread. (A file of its own: prestart runs once per process.)
 */
import { afterAll, describe, expect, it } from 'vitest'
import { prestart, prestartFromArgv } from '../../cli/prestart.js'
import { createRuntime } from '../../runtime/create-runtime.js'
import { poolRequestsPosted, poolThreadsStarted } from '../../sdk/typecheck-pool.js'

afterAll(async () => {
  await prestart(undefined)()
})

describe('codeact run --typecheck off: what is started before the CLI loads', () => {
  it('starts no checker thread, and the run needs none', async () => {
    prestartFromArgv(['job.ts', '--typecheck', 'off', '--sandbox=docker'])
    await new Promise((r) => setTimeout(r, 500))
    expect(poolThreadsStarted()).toBe(0)
    const rt = await createRuntime({ typecheck: 'off' })
    try {
      const r = await rt.runCode('const xs = [1, 2, 3]\nxs.length')
      expect(r.value, r.observation).toBe(3)
      expect(poolThreadsStarted()).toBe(0)
      expect(poolRequestsPosted()).toBe(0)
    } finally {
      await rt.close()
    }
  })
})

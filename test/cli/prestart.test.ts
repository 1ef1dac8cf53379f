/**
 * bin/codeact.mjs prestarts `codeact run`'s child from the raw arguments, before the CLI's flag parser is
 * loaded: a run for the Docker sandbox must not start an isolate child (nothing would take it), and the
 * drop that runCommand always calls ends what was started and not taken.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { prestart, prestartFromArgv } from '../../cli/prestart.js'
import { isolateChildPids } from '../sandbox/fixtures/isolate-host.js'

afterAll(async () => {
  await prestart(undefined)()
})

describe('codeact run: what is started before the CLI loads', () => {
  it('starts no isolate child for --sandbox=docker, and a later call starts nothing', async () => {
    prestartFromArgv(['job.ts', '--tools', 'x.ts', '--sandbox=docker'])
    // Once per process: this call (which would start one) does nothing.
    prestartFromArgv(['job.ts'])
    await new Promise((r) => setTimeout(r, 1500))
    expect(isolateChildPids()).toEqual([])
    // runCommand's drop: nothing to end, and it settles.
    await prestart('docker')()
    expect(isolateChildPids()).toEqual([])
  })
})

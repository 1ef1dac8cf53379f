/**
 * A host SIGKILLed in the middle of an atomic apply (crash-apply.ts) on the Docker backend, under each
 * runtime: the container stages the run (an overlay of the tree under runc, a copy under gVisor) and the
 * host applies it with the same journal, so a kill mid-apply leaves each file old or new and the next start
 * finishes it.
 */
import { beforeAll, describe, it } from 'vitest'
import { dockerEngine, dockerRuntimeCases } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { sigkillDuringApply } from './crash-apply.js'
import { ownedWorkspace } from './helpers.js'

describe.skipIf(!dockerEngine.available)('SIGKILL during an atomic apply on Docker', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 300_000)

  for (const runtime of dockerRuntimeCases) {
    const flags = [
      '--sandbox',
      'docker',
      '--docker-pool-size',
      '0',
      ...(runtime.option.runtime ? ['--docker-runtime', runtime.option.runtime] : []),
    ]
    it.skipIf(runtime.skip !== undefined)(
      `${runtime.name}: every file old or new; the next start finishes the apply`,
      async () => {
        await sigkillDuringApply(flags, ownedWorkspace)
      },
      400_000,
    )
  }
})

/** A host SIGKILLed in the middle of an atomic apply (crash-apply.ts), on the isolate sandbox. */
import { it } from 'vitest'
import { sigkillDuringApply } from './crash-apply.js'
import { workspace } from './helpers.js'

it('SIGKILL during apply: every file old or new; the next start finishes the apply', async () => {
  await sigkillDuringApply([], workspace)
}, 240_000)

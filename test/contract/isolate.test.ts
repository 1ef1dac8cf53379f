import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { sandboxContract } from './contract.js'
import { seamContract } from './seam/suite.js'
import { sessionContract } from './session-contract.js'

seamContract('isolate', {
  make: () => createIsolateSandbox(),
  // A child entry that is not there: the supervised child cannot spawn.
  unstartable: () => createIsolateSandbox({ childEntry: '/nonexistent/codeact/child.js' }),
  // As `stages30` declares it on the seam.
  capabilities: { nodeModules: false, effectsOnlyThroughHost: true, programWrites: false, sessions: true, stagesItself: false },
})
sandboxContract('isolate', { runtime: { sandbox: 'isolate' } })
sessionContract('isolate', { runtime: { sandbox: 'isolate' } })

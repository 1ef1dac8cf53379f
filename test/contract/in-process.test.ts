// The seam contract against the minimal in-process backend (test/contract/in-process/): the proof that a
// backend is a folder plus this suite. Its skips are what sharing this process means.
import { inProcessBackend } from './backends.js'
import { sandboxContract } from './contract.js'
import { createInProcessSandbox } from './in-process/index.js'
import { seamContract } from './seam/suite.js'
import { sessionContract } from './session-contract.js'

seamContract('in-process', {
  ...inProcessBackend,
  skip: {
    'a value JSON cannot hold comes back converted, with a note saying how':
      'renders with plain JSON.stringify: it does not bundle the guest runtime',
    'each kind of value comes back as JSON holds it, 100,000 records well within the limits':
      'renders with plain JSON.stringify: it does not bundle the guest runtime',
    'abort ends a busy program as aborted': 'the program runs on this thread: once it is busy nothing here runs until it yields',
    'memory past the limit ends a run as memory, and the next run runs':
      "node:vm shares this process's heap: there is no memory limit to reach",
  },
})

// The runtime's side too: plugged into createRuntime as an embedder would (`sandbox: <a Sandbox>`).
sandboxContract('in-process', { runtime: () => ({ sandbox: createInProcessSandbox() }) })
sessionContract('in-process', { runtime: () => ({ sandbox: createInProcessSandbox() }) })

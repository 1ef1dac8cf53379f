// The seam contract against the minimal in-process backend (test/contract/in-process/): the proof that a
// backend is a folder plus this suite. Its skips are what sharing this process means.
import { createInProcessSandbox } from './in-process/index.js'
import { seamContract } from './seam/suite.js'

seamContract('in-process', {
  make: (root) => createInProcessSandbox({ workspace: { root, readOnly: ['locked'] } }),
  unstartable: () => createInProcessSandbox({ unstartable: 'the in-process sandbox was told it cannot start' }),
  capabilities: createInProcessSandbox().capabilities,
  skip: {
    'abort ends a busy program as aborted': 'the program runs on this thread: once it is busy nothing here runs until it yields',
    'memory past the limit ends a run as memory, and the next run runs': "node:vm shares this process's heap: there is no memory limit to reach",
  },
})

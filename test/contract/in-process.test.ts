// The seam contract against the minimal in-process backend (test/contract/in-process/): the proof that a
// backend is a folder plus this suite. Its skips are what sharing this process means.
import { inProcessBackend } from './backends.js'
import { seamContract } from './seam/suite.js'

seamContract('in-process', {
  ...inProcessBackend,
  skip: {
    'abort ends a busy program as aborted': 'the program runs on this thread: once it is busy nothing here runs until it yields',
    'memory past the limit ends a run as memory, and the next run runs':
      "node:vm shares this process's heap: there is no memory limit to reach",
  },
})

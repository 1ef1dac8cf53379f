import { isolateBackend } from './backends.js'
import { sandboxContract } from './contract.js'
import { seamContract } from './seam/suite.js'
import { sessionContract } from './session-contract.js'

seamContract('isolate', isolateBackend)
sandboxContract('isolate', { runtime: { sandbox: 'isolate' } })
sessionContract('isolate', { runtime: { sandbox: 'isolate' } })

import { sandboxContract } from './contract.js'
import { sessionContract } from './session-contract.js'

sandboxContract('isolate', { runtime: { sandbox: 'isolate' } })
sessionContract('isolate', { runtime: { sandbox: 'isolate' } })

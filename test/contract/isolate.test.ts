import { sandboxContract } from './contract.js'

sandboxContract('isolate', { runtime: { sandbox: 'isolate' } })

/** The messages between `codeact` processes and the shared checker (checker-daemon.ts), after the handshake. */
import type { PoolAnswer, PreparedParts } from './typecheck-pool.js'
import type { CheckRequest } from './typecheck-protocol.js'

/** checkInPool's arguments as data (`check`), or a warm-up of the checker for these declarations (`warm`). */
export type CheckerRequest =
  | ({ id: number; kind: 'check'; source: string; budgetMs: number } & Pick<
      CheckRequest,
      'declarations' | 'normalise' | 'nodeTypes' | 'session'
    >)
  | { id: number; kind: 'warm'; declarations: string; nodeTypes?: boolean }

/** The prepared program (at most once, before the answer), then the answer the pool gave. */
export type CheckerMessage = { id: number; prepared: PreparedParts } | { id: number; answer: PoolAnswer }

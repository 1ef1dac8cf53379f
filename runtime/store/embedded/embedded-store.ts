/**
 * The embedded default: one process's sessions. Their histories live in the runtime's memory (and its
 * JSONL `logFile`, from which a restarted runtime restores them — runtime/session-history.ts); runs of one
 * session are already one at a time in this process, so there is no lease and nothing to load.
 */
import type { Readiness, SessionStore, StoreResult, StoreVersion, Turn } from '../types.js'

const NONE: StoreVersion = { generation: 0, runs: 0 }

export class EmbeddedStore implements SessionStore {
  readonly kind = 'embedded'
  readonly shared = false

  async ping(): Promise<Readiness> {
    return { ok: true }
  }

  async load(): Promise<StoreResult<{ version: StoreVersion; runs: [] }>> {
    return { ok: true, value: { version: NONE, runs: [] } }
  }

  async begin(): Promise<StoreResult<Turn>> {
    return {
      ok: true,
      value: { version: NONE, token: 0, commit: async () => ({ ok: true, value: NONE }), abandon: async () => {} },
    }
  }

  async clear(): Promise<StoreResult<void>> {
    return { ok: true, value: undefined }
  }

  async close(): Promise<void> {}
}

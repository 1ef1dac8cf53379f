/**
 * `store` as a runtime option or the CLI's `--store`: a URL (`postgres://…`, `postgresql://…`), a store
 * built by the embedder, or nothing (the embedded default). A store given as a URL is the runtime's to close.
 */
import { EmbeddedStore } from './embedded/embedded-store.js'
import { PostgresStore } from './postgres/postgres-store.js'
import type { SessionStore } from './types.js'

export function openStore(spec: string | SessionStore | undefined): { store: SessionStore; owned: boolean } {
  if (spec === undefined || spec === 'embedded') return { store: new EmbeddedStore(), owned: true }
  if (typeof spec !== 'string') return { store: spec, owned: false }
  if (/^postgres(ql)?:\/\//.test(spec)) return { store: new PostgresStore({ url: spec }), owned: true }
  throw new TypeError(`codeact: store must be "embedded" or a postgres://… URL, got ${JSON.stringify(spec.replace(/:[^:@/]*@/, ':***@'))}`)
}

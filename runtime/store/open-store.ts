/**
 * `store` as a runtime option or the CLI's `--store`: a URL (`postgres://…`, `postgresql://…`), the
 * options of a `PostgresStore` (`{ url, leaseMs, eventTtlMs, … }`, what the CLI's `--store-*` flags build),
 * a store built by the embedder, or nothing (the embedded default). A store given as a URL or options is the
 * runtime's to close.
 */
import { EmbeddedStore } from './embedded/embedded-store.js'
import { PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js'
import type { SessionStore } from './types.js'

export type StoreSpec = string | SessionStore | PostgresStoreOptions

export function openStore(spec: StoreSpec | undefined): { store: SessionStore; owned: boolean } {
  if (spec === undefined || spec === 'embedded') return { store: new EmbeddedStore(), owned: true }
  if (typeof spec !== 'string' && 'begin' in spec) return { store: spec, owned: false }
  const options = typeof spec === 'string' ? { url: spec } : spec
  if (/^postgres(ql)?:\/\//.test(options.url)) return { store: new PostgresStore(options), owned: true }
  throw new TypeError(
    `codeact: store must be "embedded" or a postgres://… URL, got ${JSON.stringify(options.url.replace(/:[^:@/]*@/, ':***@'))}`,
  )
}

/** docs/scale-out.md's session store snippet runs as written against a real PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { extractSnippets } from '../docs/markdown.js'
import { type PostgresCluster, postgresSkip, startPostgres } from '../../bench/postgres.js'

describe.skipIf(postgresSkip)('docs/scale-out.md', () => {
  let cluster: PostgresCluster
  beforeAll(async () => {
    cluster = await startPostgres('store32-docs')
  })
  afterAll(async () => {
    await cluster?.remove()
  })

  it('runs its snippet: a session begun on one replica goes on on the other', async () => {
    const file = extractSnippets().get('store-replicas')
    expect(file).toBeDefined()
    const { twoReplicas } = (await import(file!)) as { twoReplicas: (url: string) => Promise<unknown> }
    expect(await twoReplicas(cluster.url)).toBe(2)
  })
})

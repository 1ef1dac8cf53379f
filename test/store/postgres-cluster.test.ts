/**
 * The test set-up's PostgreSQL (bench/postgres.ts): a real server, started and removed by the
 * test, that can be stopped and started again (the store-down tests need that).
 */
import { existsSync } from 'node:fs'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { postgresSkip, startPostgres } from '../../bench/postgres.js'

async function select1(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
  await c.connect()
  try {
    const r = await c.query<{ one: number }>('select 1 as one')
    return r.rows[0]?.one ?? 0
  } finally {
    await c.end()
  }
}

describe.skipIf(postgresSkip)('a throw-away PostgreSQL cluster for tests', () => {
  it('starts on a free port, stops, starts again, and leaves nothing behind', async () => {
    const cluster = await startPostgres('selftest')
    try {
      expect(await select1(cluster.url)).toBe(1)
      await cluster.stop()
      await expect(select1(cluster.url)).rejects.toThrow(/ECONNREFUSED|connect/)
      await cluster.start()
      expect(await select1(cluster.url)).toBe(1)
    } finally {
      await cluster.remove()
    }
    expect(existsSync(cluster.dir)).toBe(false)
  })
})

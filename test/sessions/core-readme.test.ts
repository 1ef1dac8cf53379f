/** The README's Sessions snippet runs as written (extracted verbatim by test/clients/readme.test.ts's rule). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const snippet = /<!-- snippet: sessions -->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1]

describe('README: Sessions', () => {
  it('runs its snippet: the second turn reads the first turn’s orders', async () => {
    expect(snippet).toBeDefined()
    const dir = join(root, 'test', 'clients', '.snippets')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'sessions-run.ts')
    writeFileSync(file, snippet!)
    const { twoTurns } = (await import(file)) as { twoTurns: () => Promise<unknown> }
    expect(await twoTurns()).toBe(2)
  })
})

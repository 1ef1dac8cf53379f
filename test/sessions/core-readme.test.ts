/** The Sessions page's snippet runs as written (extracted verbatim from docs/sessions.md by test/docs/markdown.ts). */
import { describe, expect, it } from 'vitest'
import { extractSnippets } from '../docs/markdown.js'

describe('docs/sessions.md', () => {
  it('runs its snippet: the second turn reads the first turn’s orders', async () => {
    const file = extractSnippets().get('sessions')
    expect(file).toBeDefined()
    const { twoTurns } = (await import(file!)) as { twoTurns: () => Promise<unknown> }
    expect(await twoTurns()).toBe(2)
  })
})

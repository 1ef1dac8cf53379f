/** The sliced workspace-relative form of a path says exactly what path.relative says, tricky spellings included. */
import { relative } from 'node:path'
import { expect, it } from 'vitest'
import { relBelow } from '../../sandbox/workspace/paths.js'

it('relBelow agrees with path.relative for every spelling, normalised or not', () => {
  const root = '/tmp/ws'
  const inputs = [
    '/tmp/ws',
    '/tmp/ws/a',
    '/tmp/ws/a/b.txt',
    '/tmp/ws/.hidden/x',
    '/tmp/ws/a/..b/c',
    '/tmp/ws/...',
    '/tmp/ws/a/../b',
    '/tmp/ws/a/./b',
    '/tmp/ws/a//b',
    '/tmp/ws/a/',
    '/tmp/ws/..',
    '/tmp/ws/../etc/passwd',
    '/tmp/wsx/a',
    '/tmp/w',
    '/etc/passwd',
  ]
  for (const p of inputs) expect(relBelow(root, p), p).toBe(relative(root, p))
})

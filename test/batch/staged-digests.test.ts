/**
 * A staged run knows a file it read from the real tree and then wrote with other bytes is a change without
 * reading both copies again at the end (StagedView.knownDifferent). What can make that stale must make the
 * finish compare bytes again: a `bash` command that rewrites the staged file, or a later write of the
 * file's own bytes. Real runtime, real isolate, real stage.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { treeHash, workspace } from './helpers.js'

describe('staged runs: a file read, then written, is compared again when it may have changed back', () => {
  it('written back with its own bytes: unchanged, not a change (atomic and dry-run)', async () => {
    for (const changes of ['atomic', 'dry-run'] as const) {
      const root = workspace({ 'a.txt': 'one\n', 'b.txt': 'keep\n' })
      const before = treeHash(root)
      const rt = await testRuntime({ workspace: { root } })
      const r = await rt.runCode(
        `
        const text = await tools.read_file({ path: 'a.txt' })
        await tools.write_file({ path: 'a.txt', content: 'two\\n' })
        await tools.write_file({ path: 'a.txt', content: text })
        const b = await tools.read_file({ path: 'b.txt' })
        await tools.write_file({ path: 'b.txt', content: b + 'more\\n' })`,
        { changes },
      )
      expect(r.ok, JSON.stringify(r.error)).toBe(true)
      expect(r.changes?.map((c) => `${c.change} ${c.path}`)).toEqual(['modified b.txt'])
      if (changes === 'dry-run') expect(treeHash(root)).toBe(before)
      else expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('keep\nmore\n')
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n')
      await rt.close()
    }
  })

  it.skipIf(!bwrap.available)('rewritten back to its old bytes by bash after the write: unchanged, not a change', async () => {
    const root = workspace({ 'a.txt': 'one\n' })
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(
      `
      await tools.read_file({ path: 'a.txt' })
      await tools.write_file({ path: 'a.txt', content: 'two\\n' })
      const sh = await tools.bash({ command: "printf 'one\\\\n' > a.txt && cat a.txt" })
      return sh.stdout`,
      { changes: 'atomic' },
    )
    if (!r.ok && r.error?.code === 'EPERM') return // no staging for bash here: it refused, never ran on the tree
    expect(r.ok, JSON.stringify(r.error)).toBe(true)
    expect(r.value).toBe('one\n')
    expect(r.changes ?? []).toEqual([])
    expect(treeHash(root)).toBe(before)
    await rt.close()
  })
})

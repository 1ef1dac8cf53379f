/** Every run with a workspace says what it changed — through the file tools and through bash. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { workspace } from './helpers.js'

describe('RunResult.changes', () => {
  it('lists created, modified and deleted paths, workspace-relative and sorted; a same-bytes rewrite is no change', async () => {
    const root = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'same.txt': 's\n', 'dir/x.txt': 'x\n', 'dir/y.txt': 'y\n' })
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'a.txt', content: 'A\\n' })
      await tools.write_file({ path: 'new/deep/c.txt', content: 'c' })
      await tools.edit_file({ path: 'b.txt', old_string: 'b', new_string: 'B' })
      const same = await tools.read_file({ path: 'same.txt' })
      await tools.write_file({ path: 'same.txt', content: same })
      await tools.remove({ path: 'dir', recursive: true })
      await tools.mkdir({ path: 'empty' })
      // created then removed: no change at all
      await tools.write_file({ path: 'tmp.txt', content: 't' })
      await tools.remove({ path: 'tmp.txt' })`)
    expect(r.error).toBeNull()
    expect(r.applied).toBe('applied')
    expect(r.changes).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'modified' },
      { path: 'dir/', change: 'deleted' },
      { path: 'dir/x.txt', change: 'deleted' },
      { path: 'dir/y.txt', change: 'deleted' },
      { path: 'empty/', change: 'created' },
      { path: 'new/', change: 'created' },
      { path: 'new/deep/', change: 'created' },
      { path: 'new/deep/c.txt', change: 'created' },
    ])
    expect(r.observation).toContain('Changes (9: 2 modified, 4 created, 3 deleted):\n- modified a.txt\n- modified b.txt\n- deleted dir/')
  })

  it.skipIf(!bwrap.available)('includes what bash changed', async () => {
    const root = workspace({ 'a.txt': 'a\n', 'gone.txt': 'g\n' })
    mkdirSync(join(root, 'bin'))
    writeFileSync(join(root, 'bin/run.sh'), '#!/bin/sh\n')
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(`
      await tools.bash({ command: 'echo more >> a.txt && rm gone.txt && mkdir -p out && echo o > out/o.txt && chmod +x bin/run.sh' })`)
    expect(r.changes).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'bin/run.sh', change: 'modified' },
      { path: 'gone.txt', change: 'deleted' },
      { path: 'out/', change: 'created' },
      { path: 'out/o.txt', change: 'created' },
    ])
  })

  it('the observation lists at most 50 and says how many more', async () => {
    const root = workspace({})
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(
      `for (let i = 0; i < 120; i++) await tools.write_file({ path: 'f' + String(i).padStart(3, '0') + '.txt', content: 'x' })`,
    )
    expect(r.changes).toHaveLength(120)
    expect(r.observation).toContain('- created f049.txt\n…and 70 more')
    expect(r.observation).not.toContain('f050.txt')
  })

  it('a run without a workspace has no changes field', async () => {
    const rt = await testRuntime()
    const r = await rt.runCode('return 1')
    expect('changes' in r).toBe(false)
  })
})

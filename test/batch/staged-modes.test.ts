/**
 * A mode change is a change in a staged run too: `chmod +x` in `bash` under --atomic lands, and --dry-run
 * reports it with git's `old mode` / `new mode` lines. Before, the staged comparison looked at bytes only:
 * the chmod was neither reported nor applied (a direct run reported and kept it).
 */
import { chmodSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bwrap } from '../support/bwrap.js'
import { testRuntime } from '../support/runtime.js'
import { treeHash, workspace } from './helpers.js'

const FILES = { 'scripts/build.sh': '#!/bin/sh\necho build\n', 'scripts/test.sh': '#!/bin/sh\necho test\n', 'src/a.ts': 'a\n' }
const JOB = `
await tools.bash({ command: 'chmod +x scripts/*.sh' })
// A write of the same bytes keeps the file's mode: not a change.
await tools.write_file({ path: 'src/a.ts', content: 'a\\n' })
return 'ok'`

describe.skipIf(!bwrap.available)('staged runs and file modes', () => {
  it('--atomic applies a chmod made by bash, and lists it', async () => {
    const root = workspace(FILES)
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(JOB, { changes: 'atomic' })
    if (!r.ok && r.calls.some((c) => c.error?.code === 'EPERM')) return // no staging for bash here: refused, never ran
    expect(r.error).toBeNull()
    expect(r.applied).toBe('applied')
    expect(r.changes).toEqual([
      { path: 'scripts/build.sh', change: 'modified' },
      { path: 'scripts/test.sh', change: 'modified' },
    ])
    for (const f of ['scripts/build.sh', 'scripts/test.sh']) expect(statSync(join(root, f)).mode & 0o777).toBe(0o755)
    expect(statSync(join(root, 'src/a.ts')).mode & 0o777).toBe(0o644)
  })

  it('--dry-run shows the mode change and writes nothing', async () => {
    const root = workspace(FILES)
    chmodSync(join(root, 'src/a.ts'), 0o664)
    const before = treeHash(root)
    const rt = await testRuntime({ workspace: { root } })
    const r = await rt.runCode(JOB, { changes: 'dry-run' })
    if (!r.ok && r.calls.some((c) => c.error?.code === 'EPERM')) return
    expect(r.error).toBeNull()
    expect(r.changes?.map((c) => [c.path, c.diff])).toEqual([
      ['scripts/build.sh', 'old mode 100644\nnew mode 100755\n--- a/scripts/build.sh\n+++ b/scripts/build.sh\n'],
      ['scripts/test.sh', 'old mode 100644\nnew mode 100755\n--- a/scripts/test.sh\n+++ b/scripts/test.sh\n'],
    ])
    expect(treeHash(root)).toBe(before)
  })
})

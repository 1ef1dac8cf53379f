/**
 * A full disk under the workspace: a 1 MiB tmpfs (mounted as root). Writing past it is a typed tool
 * error the program can catch (ENOSPC), never a crash, and the workspace keeps working afterwards.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import { unansweredCalls } from '../security/log-invariants.js'

const isRoot = process.getuid?.() === 0

describe.skipIf(!isRoot)('a full disk in the workspace', () => {
  let root: string
  let rt: Runtime
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'codeact-enospc-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', root])
    rt = await createRuntime({ workspace: { root }, typecheck: 'off' })
  })
  afterAll(async () => {
    await rt?.close()
    try {
      execFileSync('umount', [root])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('answers ENOSPC to the write that does not fit, and the next write still works', async () => {
    const result = await rt.runCode(`
      const out = []
      try { await tools.write_file({ path: 'big.txt', content: 'x'.repeat(2 * 1024 * 1024) }); out.push('written') } catch (e) { out.push([e.code, /ENOSPC/.test(e.message)]) }
      await tools.remove({ path: 'big.txt' }).catch(() => {})
      out.push((await tools.write_file({ path: 'small.txt', content: 'fits' })).bytes)
      out.push(await tools.read_file({ path: 'small.txt' }))
      return out`)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toEqual([['ENOSPC', true], 4, expect.stringContaining('fits')])
    expect(unansweredCalls(rt.log.all())).toEqual([])
  })

  it('a file written in place that grows past the disk keeps its old bytes (the new tail is written first)', async () => {
    const result = await rt.runCode(`
      const old = 'keep me\\n'.repeat(1000)
      await tools.write_file({ path: 'grow.txt', content: old })
      let code = 'written'
      try { await tools.write_file({ path: 'grow.txt', content: 'y'.repeat(3 * 1024 * 1024) }) } catch (e) { code = e.code }
      const now = await tools.read_file({ path: 'grow.txt' })
      await tools.remove({ path: 'grow.txt' })
      return [code, now === old]`)
    expect(result.error, result.observation).toBeNull()
    expect(result.value).toEqual(['ENOSPC', true])
  })
})

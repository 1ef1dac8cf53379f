/**
 * Docker programs have Node and the mounted workspace: effects no host can hold. So their check is never
 * overlapped with the run (Sandbox.effectsOnlyThroughHost is false): a program with a type error does not
 * start at all, even when its check takes long and its first statement writes a file by itself.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { dockerEngine } from './engine.js'
import { ensureImage } from './helpers.js'

/** Well-typed statements whose check takes ~60–250 ms (test/runtime/typecheck-overlap.test.ts uses the same). */
const SLOW = Array.from({ length: 1000 }, (_, i) => `const f${i}: { a: number; b: string } = { a: ${i}, b: 'x${i}' }`).join('\n')

describe.skipIf(!dockerEngine.available)('docker runtime: the type check comes before the run', () => {
  it('a program whose first statement writes the workspace with node:fs, and with a type error later, writes nothing', async () => {
    await ensureImage()
    const root = mkdtempSync(join(tmpdir(), 'codeact-checkfirst-'))
    execFileSync('chown', ['65534:65534', root])
    // A budget this test cannot reach: a check past its budget lets the program run unchecked, and the
    // first check of a cold checker on a loaded machine can pass the default.
    const rt = await createRuntime({
      sandbox: 'docker',
      typecheck: 'error',
      typecheckBudgetMs: 120_000,
      docker: { poolSize: 0 },
      workspace: { root },
    })
    try {
      expect(rt.sandbox.capabilities.effectsOnlyThroughHost).toBe(false)
      const write = "require('node:fs').writeFileSync('from-node.txt', 'x')\nconsole.log('wrote')"
      const r = await rt.runCode(`${write}\n${SLOW}\nconst n = 1\nn.toFixedd()`)
      expect(r.error?.kind, r.observation).toBe('type')
      expect(r.logs).toEqual([])
      expect(existsSync(join(root, 'from-node.txt'))).toBe(false)
      // The same program without the error runs, and writes (so the first run was not just too slow to start).
      const ok = await rt.runCode(`${write}\n${SLOW}\nreturn 1`)
      expect(ok.error, ok.observation).toBeNull()
      expect(existsSync(join(root, 'from-node.txt'))).toBe(true)
    } finally {
      await rt.close()
      rmSync(root, { recursive: true, force: true })
    }
  }, 180_000)
})

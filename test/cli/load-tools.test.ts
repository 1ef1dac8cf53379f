/**
 * `codeact run --tools FILE.ts` from a folder that is no project of its own (no node_modules up its path):
 * the tools file's imports of `zod` and `codeact` resolve, to codeact's own copies, as they do under pnpm,
 * whose node_modules holds only the project's direct dependencies. Through the real binary.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../../bin/codeact.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'codeact-loose-tools-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('a tools file outside any project imports zod and codeact, and its tool runs', () => {
  writeFileSync(
    join(dir, 'tools.ts'),
    `import { defineTool } from 'codeact'
import { z } from 'zod'
export default [defineTool({ name: 'add', description: 'Adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })]
`,
  )
  writeFileSync(join(dir, 'program.ts'), 'return await tools.add({ a: 2, b: 40 })\n')
  const r = spawnSync(process.execPath, [BIN, 'run', 'program.ts', '--tools', 'tools.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  expect(r.stderr).not.toMatch(/Cannot find (package|module)/)
  expect(r.stdout + r.stderr).toMatch(/42/)
  expect(r.status, r.stderr).toBe(0)
})

/**
 * Where a staged view cannot be had for `bash` — here a workspace whose path holds ",", which an overlay
 * mount cannot take — `bash` in a --dry-run or --atomic run is refused with EPERM saying why, and never runs
 * on the real tree: a command that would overwrite a file and create another leaves every byte as it was,
 * and the refusal is listed under "Denied".
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codeact, program, treeHash, workspace } from './helpers.js'

const JOB = `
const r = await tools.bash({ command: 'echo pwned > src/a.ts; echo made > new.txt' }).catch((e) => e.code + ': ' + e.message)
await tools.write_file({ path: 'src/b.ts', content: 'b2\\n' })
return r`

describe('bash where no staged view can be mounted', () => {
  for (const mode of ['--dry-run', '--atomic']) {
    it(`${mode}: EPERM saying why; the command never runs on the real tree`, () => {
      const root = join(workspace(), 'team,repo')
      mkdirSync(join(root, 'src'), { recursive: true })
      writeFileSync(join(root, 'src/a.ts'), 'a\n')
      writeFileSync(join(root, 'src/b.ts'), 'b\n')
      const before = treeHash(root)
      const r = codeact(['run', program(JOB), '--workspace', root, mode, '--typecheck=off'])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(
        /Return value:\nEPERM: bash cannot run (staged|in a dry-run or atomic run here)[^\n]*the command did not run/,
      )
      expect(r.stdout).toMatch(/Denied \(1\):\n- bash\(/)
      if (mode === '--dry-run') expect(treeHash(root)).toBe(before)
      else expect(r.stdout).toContain('Changes (applied together, atomic run) (1: 1 modified):\n- modified src/b.ts')
      expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe('a\n')
      expect(existsSync(join(root, 'new.txt'))).toBe(false)
    })
  }
})

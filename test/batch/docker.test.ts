/**
 * The same batch features on the Docker backend: changes reported (the file tools, bash and the program's
 * own node:fs writes alike), limit flags, .gitignore in glob — and --dry-run/--atomic refused up front with
 * the reason (the container mounts the real tree), never run unstaged.
 */
import { chownSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { testRuntime } from '../support/runtime.js'
import { codeact, program, treeHash, workspace } from './helpers.js'

function ownedWorkspace(files: Record<string, string>): string {
  const root = workspace(files)
  // The container runs as the workspace's owner; make the tree match it all the way down.
  const st = { uid: 65534, gid: 65534 }
  const walk = (rel: string): void => {
    chownSync(join(root, rel), st.uid, st.gid)
  }
  walk('.')
  for (const rel of Object.keys(files)) {
    const parts = rel.split('/')
    for (let i = 1; i <= parts.length; i++) walk(parts.slice(0, i).join('/'))
  }
  return root
}

describe.skipIf(!dockerEngine.available)('batch on Docker', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 300_000)

  it('reports changes made by the file tools, bash and the program’s own node:fs', async () => {
    const root = ownedWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'g\n', '.gitignore': 'ignored/\n', 'ignored/x.txt': 'x' })
    const rt = await testRuntime({ sandbox: 'docker', docker: { poolSize: 0 }, workspace: { root } })
    const r = await rt.runCode(`
      await tools.write_file({ path: 'a.txt', content: 'A\\n' })
      await tools.bash({ command: 'rm gone.txt && echo c > c.txt' })
      const fs = require('node:fs')
      fs.writeFileSync('b.txt', 'B\\n')
      return await tools.glob({ pattern: '**/*.txt' })`)
    expect(r.error).toBeNull()
    expect(r.value).toEqual(['a.txt', 'b.txt', 'c.txt'])
    expect(r.changes).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'modified' },
      { path: 'c.txt', change: 'created' },
      { path: 'gone.txt', change: 'deleted' },
    ])
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('B\n')
  }, 120_000)

  it('--dry-run and --atomic are refused before anything runs, saying why; the tree is untouched', () => {
    const root = ownedWorkspace({ 'a.txt': 'a\n' })
    const before = treeHash(root)
    for (const flag of ['--dry-run', '--atomic']) {
      const r = codeact([
        'run',
        program(`require('node:fs').writeFileSync('a.txt', 'pwned')`),
        '--sandbox',
        'docker',
        '--workspace',
        root,
        flag,
        '--typecheck=off',
      ])
      expect(r.status).toBe(3)
      expect(r.stdout).toContain('the Docker backend mounts the real workspace into the container')
      expect(treeHash(root)).toBe(before)
    }
  }, 120_000)

  it('limit flags apply the same way', () => {
    const root = ownedWorkspace({ 'a.txt': 'a\n' })
    const r = codeact(
      ['run', '-', '--sandbox', 'docker', '--workspace', root, '--max-tool-calls', '3', '--typecheck=off', '--json'],
      'for (let i = 0; i < 5; i++) await tools.stat({ path: "a.txt" })',
    )
    const result = JSON.parse(r.stdout)
    expect(result.error.code).toBe('EDQUOT')
    expect(result.error.message).toContain('--max-tool-calls')
  }, 120_000)
})

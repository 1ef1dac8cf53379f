/** The job as a new user runs it: a 5,000-file import rewrite with the default limits, from the CLI (and on Docker). */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { codeact, ownedWorkspace, program, workspace } from './helpers.js'

const N = 5_000

const cases: [string, string[]][] = [
  ['isolate', []],
  ['docker', ['--sandbox', 'docker']],
]
for (const [backend, flags] of cases)
  it.skipIf(backend === 'docker' && !dockerEngine.available)(
    `a 5,000-file batch completes with the defaults and reports every change (${backend})`,
    async () => {
      if (backend === 'docker') await ensureImage()
      const files: Record<string, string> = {}
      for (let i = 0; i < N; i++)
        files[`src/mod${i % 50}/file${i}.ts`] = `import { get } from 'lodash'\nexport const v${i} = get({}, 'a')\n`
      const root = backend === 'docker' ? ownedWorkspace(files) : workspace(files)
      const job = program(`
    const files = await tools.glob({ pattern: 'src/**/*.ts' })
    let changed = 0
    for (let i = 0; i < files.length; i += 10) {
      await Promise.all(files.slice(i, i + 10).map(async (path) => {
        const text = await tools.read_file({ path })
        const next = text.replace("from 'lodash'", "from 'lodash-es'")
        if (next !== text) { await tools.write_file({ path, content: next }); changed++ }
      }))
    }
    console.log(\`rewrote \${changed} of \${files.length} files\`)
    return changed`)
      const r = codeact(['run', job, '--workspace', root, '--json', '--timeout', '110s', ...flags])
      const result = JSON.parse(r.stdout)
      expect(result.error).toBeNull()
      expect(result.value).toBe(N)
      expect(result.calls).toHaveLength(2 * N + 1)
      expect(result.changes).toHaveLength(N)
      expect(result.changes.every((c: { change: string }) => c.change === 'modified')).toBe(true)
      for (const i of [0, 1234, N - 1])
        expect(readFileSync(join(root, `src/mod${i % 50}/file${i}.ts`), 'utf8')).toContain("from 'lodash-es'")
    },
    180_000,
  )

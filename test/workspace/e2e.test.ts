/** One program through the real runtime (isolate sandbox): workspace tools, the policy hook, a kernel denial. */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { testRuntime } from '../support/runtime.js'
import { bwrap } from '../support/bwrap.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'codeact-e2e-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

test.skipIf(!bwrap.available)(
  'rt.runCode: a batch edit, an EROFS refusal caught by the program, and a denied bash all reach the observation',
  async () => {
    const root = join(base, 'ws')
    mkdirSync(join(root, 'src'), { recursive: true })
    mkdirSync(join(root, 'vendor'))
    for (let i = 0; i < 20; i++) writeFileSync(join(root, 'src', `m${i}.ts`), `export const v${i} = 'old'\n`)
    writeFileSync(join(root, 'vendor/lib.ts'), 'frozen\n')
    const rt = await testRuntime({ workspace: { root, readOnly: ['vendor'] } })
    const r = await rt.runCode(`
    const files = await tools.glob({ pattern: 'src/**/*.ts' })
    await Promise.all(files.map(async (path) => {
      const text = await tools.read_file({ path })
      await tools.write_file({ path, content: text.replace("'old'", "'new'") })
    }))
    let refused = ''
    try { await tools.write_file({ path: 'vendor/lib.ts', content: 'x' }) } catch (e) { refused = e.code }
    const sh = await tools.bash({ command: 'echo x >> vendor/lib.ts; echo done' })
    return { n: files.length, refused, denied: sh.denied, stdout: sh.stdout }
  `)
    expect(r.error).toBeNull()
    expect(r.value).toEqual({ n: 20, refused: 'EROFS', denied: 'EROFS', stdout: 'done\n' })
    for (let i = 0; i < 20; i++) expect(readFileSync(join(root, 'src', `m${i}.ts`), 'utf8')).toBe(`export const v${i} = 'new'\n`)
    expect(readFileSync(join(root, 'vendor/lib.ts'), 'utf8')).toBe('frozen\n')
    const denials = r.events.filter((e) => e.type === 'denial').map((e) => (e.data as { code: string }).code)
    expect(denials).toContain('EROFS')
    expect(r.observation).toMatch(/EROFS/)
  },
)

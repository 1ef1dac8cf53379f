/**
 * stderr that is not a terminal (a pipe, a CI log) gets the calm, line-based form: console lines as they
 * come, one line per failed call, a progress line every 5 s, the summary — no carriage returns or escape
 * sequences, and no line per successful call unless --verbose asks for them.
 */
import { describe, expect, it } from 'vitest'
import { codeact, program, workspace } from './helpers.js'

describe('progress on a pipe', () => {
  it('calm lines: console, failures, a progress line every 5 s, the summary; per-call lines only with --verbose', () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 200; i++) files[`src/f${i}.ts`] = `export const v = ${i}\n`
    const root = workspace(files)
    const job = program(`
const files = await tools.glob({ pattern: 'src/*.ts' })
let n = 0
for (const path of files) {
  await tools.write_file({ path, content: (await tools.read_file({ path })).replace('v =', 'value =') })
  if (++n % 50 === 0) { console.log('at ' + n); await new Promise((r) => setTimeout(r, 1700)) }
}
await tools.read_file({ path: 'missing.ts' }).catch(() => {})
return n`)
    const r = codeact(['run', job, '--workspace', root, '--typecheck=off'])
    expect(r.status, r.stderr).toBe(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the absence of terminal control is what is asserted
    expect(r.stderr).not.toMatch(/[\r\x1b]/)
    expect(r.stderr).toContain('at 50\nat 100\n')
    expect(r.stderr).toMatch(
      /^ {2}… \d+\.\d s · [\d,]+ calls \((read_file|write_file) [\d,]+, (read_file|write_file) [\d,]+, glob 1\) · [\d,]+ files written · “at \d+”$/m,
    )
    expect(r.stderr).toContain('  ↳ read_file ENOENT: no such file or folder: missing.ts')
    expect(r.stderr).not.toContain('↳ write_file ok')
    expect(r.stderr).toMatch(
      /Done in \d+\.\d s · 402 tool calls \(.*\) · 1 failed\nFiles: 200 modified, 0 created, 0 deleted, 0 unchanged, 1 failed\n$/,
    )
    const verbose = codeact(['run', job, '--workspace', workspace(files), '--typecheck=off', '--verbose'])
    expect(verbose.stderr.match(/↳ write_file ok/g)?.length).toBe(200)
  }, 120_000)
})

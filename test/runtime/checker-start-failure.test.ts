// A checker thread that cannot start — a broken install, where a module the thread imports is missing —
// is an answer, not a hang: every waiting run fails at once saying why and what fixes it, and a later run
// tries again. (The pool used to spawn a new thread for the waiting run each time one died: the run never
// answered and the process spun at 100 % CPU.) The check off or on: every program is prepared in the thread.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../../', import.meta.url))

describe('a checker thread that cannot start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-broken-install-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('fails each run at once, saying why and how to fix it, with the check off and on', () => {
    cpSync(join(repo, 'dist'), join(dir, 'dist'), { recursive: true })
    cpSync(join(repo, 'package.json'), join(dir, 'package.json'))
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'))
    const worker = join(dir, 'dist/program/typecheck-worker.js')
    writeFileSync(worker, `import 'codeact-missing-dependency'\n${readFileSync(worker, 'utf8')}`)
    const script = `
      const { createRuntime } = await import(${JSON.stringify(join(dir, 'dist/runtime/index.js'))})
      const out = []
      const pad = ' // a comment'
      for (const typecheck of ['off', 'error']) {
        const rt = await createRuntime({ tools: [], typecheck })
        const runs = await Promise.all([rt.runCode('return 1' + pad), rt.runCode('return 2' + pad)])
        const again = await rt.runCode('return 3' + pad)
        for (const r of [...runs, again]) out.push({ ok: r.ok, kind: r.error?.kind, message: r.error?.message })
        await rt.close()
      }
      console.log(JSON.stringify({ out }))`
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 })
    const { out: runs } = JSON.parse(stdout) as { out: { ok: boolean; kind: string; message: string }[] }
    expect(runs).toHaveLength(6)
    for (const r of runs) {
      expect(r.ok).toBe(false)
      expect(r.kind).toBe('compile')
      expect(r.message).toContain("the checker's thread could not start (Cannot find package 'codeact-missing-dependency'")
      expect(r.message).toContain('reinstall with `npm ci`')
    }
  }, 90_000)
})

/**
 * `codeact run --ask TOOL` as a person uses it: the built CLI under a real pseudo-terminal (util-linux
 * `script`), answering y / n / a at the prompts; and without a terminal, where the call is refused at once.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const tmp = mkdtempSync(join(tmpdir(), 'codeact-ask-'))
const toolsFile = join(tmp, 'tools.mjs')
writeFileSync(
  toolsFile,
  `export default [{
    name: 'remove', description: 'Delete a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: ({ path }) => ({ removed: path }),
  }, {
    name: 'sleep', description: 'Wait.', parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    execute: ({ ms }) => new Promise((r) => setTimeout(() => r(ms), ms)),
  }]\n`,
)
const program = join(tmp, 'cleanup.ts')
writeFileSync(
  program,
  `const out: string[] = []
for (const path of ['a.log', 'b.log', 'c.log', 'd.log']) {
  out.push(await tools.remove({ path }).then(() => 'removed ' + path, (e) => e.code + ' ' + path))
}
return out\n`,
)
const bin = resolve('bin/codeact.mjs')
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Runs the CLI inside a pty; answers each prompt in turn as it appears. */
function underPty(args: string[], answers: string[]): Promise<{ status: number | null; output: string; prompts: number }> {
  const command = [process.execPath, bin, ...args].map(quote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  let prompts = 0
  const onData = (chunk: Buffer) => {
    output += chunk.toString()
    const seen = output.split('[a]lways for').length - 1
    while (prompts < seen) {
      const answer = answers[prompts++] ?? 'n'
      // A person reads before answering: longer than the program's whole --timeout.
      setTimeout(() => child.stdin.write(answer + '\r'), 700)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  return new Promise((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (status) => {
      clearTimeout(kill)
      child.stdin.destroy()
      done({ status, output, prompts })
    })
  })
}

describe('codeact run --ask', () => {
  it('asks on the terminal: y runs the call, n refuses it (EACCES), a approves the tool for the rest of the run', async () => {
    const r = await underPty(['run', program, '--tools', toolsFile, '--ask', 'remove', '--timeout', '300'], ['y', 'n', 'a'])
    expect(r.prompts).toBe(3)
    expect(r.output).toContain('codeact: Allow remove({"path":"a.log"})?')
    expect(r.output).toContain('["removed a.log","EACCES b.log","removed c.log","removed d.log"]')
    expect(r.output).toContain('→ denied: the user said no')
    expect(r.output).toContain('→ approved (always for this tool)')
    expect(r.status).toBe(0)
  })

  it('without a terminal the call is refused at once, saying why', () => {
    const r = spawnSync(process.execPath, [bin, 'run', program, '--tools', toolsFile, '--ask', 'remove'], {
      encoding: 'utf8',
      input: '',
      timeout: 60_000,
    })
    expect(r.stdout).toContain('"EACCES a.log"')
    expect(r.stdout).toContain('not approved: codeact asks before this tool runs (--ask) and stdin is not a terminal')
    expect(r.status).toBe(0)
  })

  it('--timeout is program time: a 2 s tool call inside a 300 ms program; --deadline bounds the whole', () => {
    const run = (extra: string[]) =>
      spawnSync(process.execPath, [bin, 'run', '-', '--tools', toolsFile, '--timeout', '300', ...extra], {
        encoding: 'utf8',
        input: 'return await tools.sleep({ ms: 2000 })',
        timeout: 60_000,
      })
    const ok = run([])
    expect(ok.stdout).toContain('Return value:\n2000')
    expect(ok.status).toBe(0)
    const late = run(['--deadline', '700'])
    expect(late.stdout).toContain('passed its 700 ms deadline')
    expect(late.stdout).toContain('raise deadlineMs (--deadline)')
    expect(late.status).toBe(1)
  })
})

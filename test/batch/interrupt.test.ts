/**
 * Ctrl-C at a terminal (typed into a real pseudo-terminal, so the line discipline sends SIGINT to the
 * foreground process group, as a person's Ctrl-C does): `codeact run` cancels the run instead of dying
 * mid-line, says so, prints the observation and the summary, and exits 130. Under `--atomic` the tree is
 * byte-identical and the observation says nothing was applied; a direct run lists what it changed before the
 * cancel. Before, the process died on the signal: exit 130 with nothing said, not even the staged run's
 * "Nothing was applied".
 */
import { spawn, spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { STATE_DIR, ownedWorkspace, program, treeHash, workspace } from './helpers.js'

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
if (!hasScript) console.warn('[interrupt tests skipped] script (util-linux) not found; apt-get install util-linux')

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** Runs codeact under a pty and types Ctrl-C once the screen shows `when`. */
function interruptUnderPty(args: string[], when: string): Promise<{ status: number | null; screen: string }> {
  const cmd = [process.execPath, 'bin/codeact.mjs', ...args].map(quote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 160; ${cmd}`, '/dev/null'], {
    env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR, TERM: 'xterm' },
  })
  let screen = ''
  let sent = false
  child.stdout.on('data', (c: Buffer) => {
    screen += c.toString('utf8')
    if (!sent && screen.includes(when)) {
      sent = true
      child.stdin.write('\x03')
    }
  })
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, screen: screen.replaceAll('\r\n', '\n') })))
}

function repo(owned = false): string {
  const files: Record<string, string> = {}
  for (let i = 0; i < 300; i++) files[`src/f${String(i).padStart(3, '0')}.ts`] = `export const v${i} = ${i}\n`
  return owned ? ownedWorkspace(files) : workspace(files)
}

// Slow enough that the Ctrl-C lands mid-run: a pause after every 50 files.
const JOB = `
const files = await tools.glob({ pattern: 'src/*.ts' })
let n = 0
for (const path of files) {
  await tools.write_file({ path, content: '// header\\n' + (await tools.read_file({ path })) })
  if (++n % 50 === 0) { console.log('at ' + n); await new Promise((r) => setTimeout(r, 400)) }
}
return n`

describe.skipIf(!hasScript)('Ctrl-C during codeact run', () => {
  it('--atomic: the run is cancelled, the tree keeps every byte, and it says nothing was applied (exit 130)', async () => {
    const root = repo()
    const before = treeHash(root)
    const { status, screen } = await interruptUnderPty(['run', program(JOB), '--workspace', root, '--atomic', '--typecheck=off'], 'at 100')
    expect(status).toBe(130)
    expect(screen).toContain('codeact: interrupted; cancelling the run')
    expect(screen).toContain('Error (aborted)')
    expect(screen).toMatch(/Nothing was applied \(atomic run\): the run did not end ok, so its \d+ staged change\(s\) were discarded/)
    expect(screen).toMatch(/Nothing applied \(atomic: the run did not end ok; the workspace is as it was\)\. Staged: \d+ modified/)
    expect(screen).not.toContain('at 300')
    expect(treeHash(root)).toBe(before)
  }, 60_000)

  it('a direct run lists what it changed before the cancel, and the summary counts it', async () => {
    const root = repo()
    const { status, screen } = await interruptUnderPty(
      ['run', program(JOB), '--workspace', root, '--typecheck=off', '--no-atomic'],
      'at 100',
    )
    expect(status).toBe(130)
    expect(screen).toContain('Error (aborted)')
    expect(screen).toMatch(/Changes \(\d+: \d+ modified\):\n- modified src\/f000\.ts/)
    expect(screen).toMatch(/Stopped in \d+\.\d s · \d+ tool calls/)
    expect(screen).toMatch(/Files: \d+ modified, 0 created, 0 deleted/)
  }, 60_000)

  it.skipIf(!dockerEngine.available)(
    'on Docker (--atomic): cancelled, nothing applied, the tree keeps every byte',
    async () => {
      await ensureImage()
      const root = repo(true)
      const before = treeHash(root)
      const { status, screen } = await interruptUnderPty(
        ['run', program(JOB), '--workspace', root, '--atomic', '--typecheck=off', '--sandbox', 'docker', '--docker-pool-size', '0'],
        'at 100',
      )
      expect(status).toBe(130)
      expect(screen).toContain('Error (aborted)')
      expect(screen).toMatch(/Nothing was applied \(atomic run\)/)
      expect(treeHash(root)).toBe(before)
    },
    120_000,
  )
})

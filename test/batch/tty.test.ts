/**
 * The terminal side, driven through a real pseudo-terminal (`script -q -c` from util-linux): the live
 * status line redrawn in place, and `--review` answering apply / skip / all / quit per file.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { STATE_DIR, ownedWorkspace, program, treeHash, workspace } from './helpers.js'

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
if (!hasScript) console.warn('[tty tests skipped] script (util-linux) not found; apt-get install util-linux')

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** Runs codeact under a pty; `answer(screen)` may return keys to type when the screen shows a prompt. */
function underPty(args: string[], answer?: (screen: string) => string | undefined): Promise<{ status: number | null; screen: string }> {
  const cmd = [process.execPath, 'bin/codeact.mjs', ...args].map(shellQuote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 160; ${cmd}`, '/dev/null'], {
    env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR, TERM: 'xterm' },
  })
  let screen = ''
  let answered = 0
  child.stdout.on('data', (c: Buffer) => {
    screen += c.toString('utf8')
    const prompts = screen.split('apply? [y]es').length - 1
    if (answer && prompts > answered) {
      answered = prompts
      const keys = answer(screen)
      if (keys !== undefined) child.stdin.write(keys)
    }
  })
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, screen })))
}

describe.skipIf(!hasScript)('on a terminal', () => {
  const backends: [string, string[]][] = [
    ['isolate', []],
    ['docker', ['--sandbox', 'docker', '--docker-pool-size', '0']],
  ]
  for (const [backend, flags] of backends)
    it.skipIf(backend === 'docker' && !dockerEngine.available)(
      `shows one live status line, redrawn in place, then the summary (${backend})`,
      async () => {
        if (backend === 'docker') await ensureImage()
        const files: Record<string, string> = {}
        for (let i = 0; i < 400; i++) files[`data/f${i}.txt`] = `status=draft ${i}\n`
        const root = backend === 'docker' ? ownedWorkspace(files) : workspace(files)
        const job = program(`
      const files = await tools.glob({ pattern: 'data/*.txt' })
      let n = 0
      for (const path of files) {
        const text = await tools.read_file({ path })
        await tools.write_file({ path, content: text.replace('draft', 'final') })
        if (++n % 100 === 0) console.log('done ' + n)
      }
      try { await tools.read_file({ path: 'missing.txt' }) } catch {}
      return n`)
        const { status, screen } = await underPty(['run', job, '--workspace', root, '--typecheck=off', ...flags])
        expect(status).toBe(0)
        // Redrawn in place (carriage return + erase line), never one line per call.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is asserted
        expect(screen).toMatch(/\r\x1b\[K\d+\.\d s · \d[\d,]* calls \(/)
        expect(screen).toMatch(/calls \((read_file|write_file) \d+, (read_file|write_file) \d+, glob 1\)/)
        expect(screen).toMatch(/files written · “done (1|2|3|4)00”/)
        expect(screen).not.toContain('↳ read_file ok')
        expect(screen).toContain('↳ read_file ENOENT')
        expect(screen).toMatch(/Done in \d+\.\d s · 802 tool calls \(.*\) · 1 failed/)
        expect(screen).toContain('Files: 400 modified, 0 created, 0 deleted, 0 unchanged, 1 failed')
        expect(readFileSync(join(root, 'data/f7.txt'), 'utf8')).toBe('status=final 7\n')
      },
      120_000,
    )

  it('--review: apply, skip, all, quit — and only what was accepted lands', async () => {
    const files: Record<string, string> = {}
    for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) files[`${n}.txt`] = `${n} old\n`
    const root = workspace(files)
    const job = program(
      `for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await tools.write_file({ path: n + '.txt', content: n + ' new\\n' })`,
    )
    // a: y, b: n, c: a(ll) → c, d, e, f applied without asking.
    const keys = ['y', 'n', 'a']
    const first = await underPty(['run', job, '--workspace', root, '--review', '--typecheck=off'], () => keys.shift())
    expect(first.status).toBe(0)
    expect(first.screen).toContain('-a old')
    expect(first.screen).toContain('+a new')
    expect(first.screen).toContain('(1/6) modified a.txt — apply?')
    expect(first.screen).toContain('(3/6) modified c.txt — apply?')
    expect(first.screen).not.toContain('(4/6)')
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => readFileSync(join(root, `${n}.txt`), 'utf8'))).toEqual([
      'a new\n',
      'b old\n',
      'c new\n',
      'd new\n',
      'e new\n',
      'f new\n',
    ])
    expect(first.screen).toContain('Partly applied (review)')
    // A skipped change is counted as skipped, not as "unchanged" (it said "1 unchanged" before).
    expect(first.screen).toContain('Applied in part (review): 5 modified, 0 created, 0 deleted, 0 unchanged, 0 failed, 1 skipped in review')

    // quit at the first question: nothing lands.
    const again = workspace(files)
    const before = treeHash(again)
    const second = await underPty(['run', job, '--workspace', again, '--review', '--typecheck=off'], () => 'q')
    expect(second.status).toBe(0)
    expect(second.screen).toContain('Nothing was applied: every change was skipped in review.')
    // quit skips the rest: all six are counted, though only the first was asked.
    expect(second.screen).toContain('0 modified, 0 created, 0 deleted, 0 unchanged, 0 failed, 6 skipped in review')
    expect(second.screen).not.toContain('(2/6)')
    expect(treeHash(again)).toBe(before)
  })

  // The same review on Docker: the container's workspace is an overlay of the tree, read back after the run.
  it.skipIf(!dockerEngine.available)(
    '--review on Docker (runc): what was accepted lands, bash and node:fs writes included',
    async () => {
      await ensureImage()
      const files: Record<string, string> = {}
      for (const n of ['a', 'b', 'c']) files[`${n}.txt`] = `${n} old\n`
      const root = ownedWorkspace(files)
      const job = program(`
      await tools.write_file({ path: 'a.txt', content: 'a new\\n' })
      await tools.bash({ command: 'echo "b new" > b.txt' })
      require('node:fs').writeFileSync('c.txt', 'c new\\n')`)
      const keys = ['n', 'y', 'y']
      const r = await underPty(
        ['run', job, '--workspace', root, '--review', '--typecheck=off', '--sandbox', 'docker', '--docker-pool-size', '0'],
        () => keys.shift(),
      )
      expect(r.status).toBe(0)
      expect(r.screen).toContain('(1/3) modified a.txt — apply?')
      expect(r.screen).toContain('+b new')
      expect(r.screen).toContain('(3/3) modified c.txt — apply?')
      expect(['a', 'b', 'c'].map((n) => readFileSync(join(root, `${n}.txt`), 'utf8'))).toEqual(['a old\n', 'b new\n', 'c new\n'])
    },
    120_000,
  )

  it('--review needs a terminal', () => {
    const root = workspace({ 'a.txt': 'a' })
    const r = spawnSync(process.execPath, ['bin/codeact.mjs', 'run', '-', '--workspace', root, '--review'], {
      input: 'return 1',
      encoding: 'utf8',
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--review needs a terminal')
  })
})

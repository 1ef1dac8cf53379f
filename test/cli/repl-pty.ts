/**
 * `codeact repl` under a real pseudo-terminal (`script -q -c` from util-linux), typed at like a person:
 * `type(keys)` sends keystrokes (`\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D), `waitFor(text)` waits until
 * the screen shows it after everything already waited for, and `exited` is the exit status.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
if (!hasScript) console.warn('[repl pty tests skipped] script (util-linux) not found; apt-get install util-linux')

const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A fresh temp folder, removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** The screen as a person reads it: colours, cursor moves and carriage returns taken out. */
export function plain(screen: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what is removed
  return screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')
}

export interface Repl {
  type(keys: string): void
  /**
   * Resolves with the plain screen once `text` shows after the last match; rejects with the screen if the
   * REPL exits first or nothing shows for `patienceMs` (a bound on a failing test, not a timed assertion).
   */
  waitFor(text: string | RegExp, patienceMs?: number): Promise<string>
  /** Everything shown so far, plain. */
  screen(): string
  exited: Promise<number | null>
  kill(): void
}

export function startRepl(args: string[], env: Record<string, string> = {}): Repl {
  const cmd = [process.execPath, 'bin/codeact.mjs', 'repl', ...args].map(shellQuote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 200; ${cmd}`, '/dev/null'], {
    env: { ...process.env, TERM: 'xterm', ...env },
  })
  let raw = ''
  let from = 0
  const waiters = new Set<() => void>()
  child.stdout.on('data', (c: Buffer) => {
    raw += c.toString('utf8')
    for (const w of [...waiters]) w()
  })
  child.stderr.on('data', (c: Buffer) => {
    raw += c.toString('utf8')
  })
  let done = false
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (status) => {
      done = true
      for (const w of [...waiters]) w()
      resolve(status)
    }),
  )
  return {
    type: (keys) => child.stdin.write(keys),
    waitFor: (text, patienceMs = 45_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`the REPL did not show ${String(text)}; the screen:\n${plain(raw)}`))
        }, patienceMs)
        const check = (): void => {
          const screen = plain(raw)
          const rest = screen.slice(from)
          const at = typeof text === 'string' ? rest.indexOf(text) : rest.search(text)
          if (at >= 0) {
            const len = typeof text === 'string' ? text.length : (rest.slice(at).match(text)?.[0].length ?? 0)
            from += at + len
            waiters.delete(check)
            clearTimeout(timer)
            resolve(screen)
          } else if (done) {
            waiters.delete(check)
            clearTimeout(timer)
            reject(new Error(`the REPL exited before showing ${String(text)}; the screen:\n${screen}`))
          }
        }
        waiters.add(check)
        check()
      }),
    screen: () => plain(raw),
    exited,
    kill: () => child.kill('SIGKILL'),
  }
}

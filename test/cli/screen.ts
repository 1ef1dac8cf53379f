/**
 * The real binary on a real terminal, read as a person reads it: each command runs in a tmux pane of its own
 * (a private tmux server per test file), and `screen()` is what the pane shows — tmux interprets every
 * escape sequence, so a sequence that erased or redrew the screen has done so here too. `history()` adds the
 * lines scrolled off the top; `raw()` is every byte the command wrote (through `script`, for asserting on
 * the bytes themselves). `type(keys)` sends keystrokes literally; `waitFor(text)` waits until the screen
 * shows it; `exited` is the exit status.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll } from 'vitest'

export const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0
if (!hasTmux) console.warn('[terminal screen tests skipped] tmux not found; apt-get install tmux')

const BIN = resolve('bin/codeact.mjs')
const socket = `codeact-test-${process.pid}`
const dir = mkdtempSync(join(tmpdir(), 'codeact-screen-'))
let panes = 0

afterAll(() => {
  // Our own server, on our own socket: ends every pane this file started.
  spawnSync('tmux', ['-L', socket, 'kill-server'])
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true })
  rmSync(dir, { recursive: true, force: true })
})

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
  return r.stdout ?? ''
}

export interface Screen {
  /** What the pane shows now, one string per row, trailing blanks trimmed. */
  screen(): string
  /** The pane's scrollback and screen. */
  history(): string
  /** Every byte the command wrote to the terminal so far. */
  raw(): string
  type(keys: string): void
  waitFor(text: string | RegExp, patienceMs?: number): Promise<string>
  exited: Promise<number>
}

export interface ScreenOptions {
  cols?: number
  rows?: number
  env?: Record<string, string>
  cwd?: string
}

/** Runs `codeact ARGS…` on a terminal of `cols`×`rows`. */
export function onScreen(args: string[], options: ScreenOptions = {}): Screen {
  const name = `p${++panes}`
  const log = join(dir, `${name}.raw`)
  const env = Object.entries({ TERM: 'xterm-256color', ...options.env })
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ')
  const command = [process.execPath, BIN, ...args].map(quote).join(' ')
  // `script` keeps the bytes; the pane stays after the command ends, showing its exit status.
  const inner = `cd ${quote(options.cwd ?? process.cwd())} && env ${env} script -q -e -f -c ${quote(command)} ${quote(log)}; echo "[exited $?]"; sleep 3600`
  tmux('new-session', '-d', '-s', name, '-x', String(options.cols ?? 160), '-y', String(options.rows ?? 50), inner)
  tmux('set-option', '-t', name, 'history-limit', '20000')
  const screen = () =>
    tmux('capture-pane', '-p', '-t', name)
      .replace(/[ \t]+$/gm, '')
      .trimEnd()
  const history = () =>
    tmux('capture-pane', '-p', '-S', '-', '-t', name)
      .replace(/[ \t]+$/gm, '')
      .trimEnd()
  const waitFor = async (text: string | RegExp, patienceMs = 30_000): Promise<string> => {
    const until = Date.now() + patienceMs
    for (;;) {
      const s = screen()
      if (typeof text === 'string' ? s.includes(text) : text.test(s)) return s
      if (Date.now() > until) throw new Error(`the screen did not show ${String(text)}; it shows:\n${history()}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const exited = waitFor(/\[exited (\d+)\]/, 120_000).then((s) => Number(/\[exited (\d+)\]/.exec(s)![1]))
  exited.catch(() => {})
  return {
    screen,
    history,
    raw: () => {
      try {
        return readFileSync(log, 'utf8')
      } catch {
        return ''
      }
    },
    type: (keys) => void tmux('send-keys', '-t', name, '-l', keys),
    waitFor,
    exited,
  }
}

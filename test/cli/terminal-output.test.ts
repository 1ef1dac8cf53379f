/**
 * What `codeact run` prints for a person, through the real binary: console lines once whether stdout and
 * stderr are one terminal or one combined log, the changed files capped with the way to get them all, error
 * locations as FILE:LINE:COL, and a status line that says it is type-checking and keeps ticking meanwhile.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATE_DIR, workspace } from '../batch/helpers.js'
import { tempDir } from './repl-pty.js'
import { hasTmux, onScreen } from './screen.js'

const dir = tempDir('codeact-output-')
function program(name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}
const BIN = join(process.cwd(), 'bin/codeact.mjs')
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** stdout and stderr into one pipe, as a CI log has them. */
function combined(args: string[]): { status: number | null; log: string } {
  const r = spawnSync('sh', ['-c', `${[process.execPath, BIN, ...args].map(quote).join(' ')} 2>&1`], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR },
  })
  return { status: r.status, log: r.stdout }
}

const count = (text: string, part: string) => text.split(part).length - 1

const CHATTY = `console.log('line one of the program')
console.warn('a warning of the program')
return 42`

describe('what a person reads after codeact run', () => {
  it('console lines appear once in a combined log', () => {
    const { status, log } = combined(['run', program('chatty.ts', CHATTY), '--typecheck=off'])
    expect(status).toBe(0)
    expect(count(log, 'line one of the program')).toBe(1)
    expect(count(log, 'warn: a warning of the program')).toBe(1)
    expect(log).toContain('Return value:\n42')
  })

  it.skipIf(!hasTmux)('console lines appear once on a terminal', async () => {
    const t = onScreen(['run', program('chatty-tty.ts', CHATTY), '--typecheck=off'])
    expect(await t.exited).toBe(0)
    expect(count(t.history(), 'line one of the program')).toBe(1)
    expect(count(t.history(), 'warn: a warning of the program')).toBe(1)
  })

  it('the changed files are capped to a few lines, saying how to get them all, with no library names', () => {
    const root = workspace()
    const job = program(
      'many.ts',
      `for (let i = 0; i < 12; i++) await tools.write_file({ path: 'f' + String(i).padStart(2, '0') + '.txt', content: 'x' })`,
    )
    const { status, log } = combined(['run', job, '--workspace', root, '--typecheck=off', '--no-atomic'])
    expect(status).toBe(0)
    expect(log).toContain(
      'Changes (12: 12 created):\n- created f00.txt\n- created f01.txt\n- created f02.txt\n- created f03.txt\n- created f04.txt\n…and 7 more (--json lists them all)\n',
    )
    expect(log).not.toMatch(/RunResult|\.changes\b/)
    const json = spawnSync(process.execPath, [BIN, 'run', job, '--workspace', workspace(), '--typecheck=off', '--json'], {
      encoding: 'utf8',
    })
    expect((JSON.parse(json.stdout) as { changes: unknown[] }).changes).toHaveLength(12)
  })

  const located: [string, string, string][] = [
    ['type.ts', 'const a = 1\nconst x: number = tools.nope()\nreturn x\n', '\nFILE:2:25: `tools.nope` does not exist.'],
    ['syntax.ts', 'const a = 1\nconst b = (\n', "Error (compile): FILE:2:11: This '(' is never closed"],
    ['throws.ts', 'const a = 1\nthrow new Error("boom")\n', 'Error (runtime): FILE:2:7: Error: boom'],
  ]
  for (const [name, text, said] of located)
    it(`an error in ${name} is located as FILE:LINE:COL`, () => {
      const file = program(name, text)
      const { status, log } = combined(['run', file])
      expect(status).toBe(1)
      expect(log).toContain(said.replace('FILE', file))
    })

  it.skipIf(!hasTmux)('the status line says type-checking… and ticks while the program is checked', async () => {
    // Types the checker has to work through (a tuple built one element at a time) before the first call.
    const job = program(
      'slow-check.ts',
      `type Grow<N extends number, A extends 0[] = []> = A['length'] extends N ? A : Grow<N, [...A, 0]>
type T1 = Grow<999>; type T2 = Grow<998>; type T3 = Grow<997>; type T4 = Grow<996>
const n: [T1['length'], T2['length'], T3['length'], T4['length']] = [999, 998, 997, 996]
console.log('checked')
return n`,
    )
    const t = onScreen(['run', job])
    expect(await t.exited).toBe(0)
    // Every redraw of the status line before the program ran, as written to the terminal.
    const raw = t.raw()
    const before = raw.slice(0, raw.indexOf('checked'))
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is read
    const ticks = new Set([...before.matchAll(/\r\x1b\[K(\d+\.\d) s · type-checking…/g)].map((m) => m[1]))
    expect(ticks.size).toBeGreaterThanOrEqual(2)
  })
})

/**
 * Event logs rewritten by an attacker (issue 34): a `--log` file a program could write (it lies in its
 * workspace) is changed, reordered, spliced from another log, cut in the middle, or stripped of its MACs,
 * and then fed to what trusts a log: `codeact replay` (a person reading what the model saw), `codeact repl
 * --session` (a session rebuilt by running the logged programs again) and the library's restore from a
 * `logFile`. Each must refuse the log, naming the line that fails and why, and show or run nothing of it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'

const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})
function temp(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  made.push(d)
  return d
}

const STATE = temp('codeact-state-')
const savedStateDir = process.env.CODEACT_STATE_DIR
process.env.CODEACT_STATE_DIR = STATE
afterAll(() => {
  if (savedStateDir === undefined) delete process.env.CODEACT_STATE_DIR
  else process.env.CODEACT_STATE_DIR = savedStateDir
})

function codeact(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/codeact.mjs', ...args], {
    input,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CODEACT_STATE_DIR: STATE, CODEACT_REPL_HISTORY: '' },
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

const lines = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n')
const write = (file: string, ls: string[]): void => writeFileSync(file, `${ls.join('\n')}\n`)

/** A log of one `codeact run` whose observation says who was paid. */
function runLog(payee: string): string {
  const file = join(temp('codeact-forged-log-'), 'run.jsonl')
  const r = codeact(['run', '-', '--typecheck=off', '--log', file], `console.log('paid 100 to ${payee}')\nreturn 'paid ${payee}'`)
  expect(r.status, r.stderr).toBe(0)
  return file
}

/** The ways an attacker rewrites a log: each returns the 1-based line the check must name. */
const FORGERIES: [string, (file: string) => number][] = [
  [
    'a line changed (its MAC kept)',
    (file) => {
      const ls = lines(file)
      const i = ls.findIndex((l) => l.includes('alice'))
      ls[i] = ls[i]!.replaceAll('alice', 'mallory')
      write(file, ls)
      return i + 1
    },
  ],
  [
    'two lines swapped',
    (file) => {
      const ls = lines(file)
      ;[ls[0], ls[1]] = [ls[1]!, ls[0]!]
      write(file, ls)
      return 1
    },
  ],
  [
    'a line cut from the middle',
    (file) => {
      const ls = lines(file)
      ls.splice(1, 1)
      write(file, ls)
      return 2
    },
  ],
  [
    "lines spliced in from another of the user's logs",
    (file) => {
      const other = lines(runLog('mallory'))
      const ls = lines(file)
      write(file, [...ls.slice(0, 2), ...other.slice(2)])
      return 3
    },
  ],
  [
    'every MAC stripped (a log written by hand, or by a codeact from before logs were signed)',
    (file) => {
      write(
        file,
        lines(file).map((l) => l.replace(/,"mac":"[0-9a-f]{64}"\}$/, '}').replaceAll('alice', 'mallory')),
      )
      return 1
    },
  ],
]

describe('codeact replay', () => {
  it('replays a log it wrote, and one whose last line a killed host left torn', () => {
    const file = runLog('alice')
    writeFileSync(file, readFileSync(file, 'utf8') + '{"seq":99,"time":1,"type":"run/st')
    const r = codeact(['replay', file])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('paid 100 to alice')
  })

  it.each(FORGERIES)('refuses a log with %s, naming the line, and prints none of it', (_label, forge) => {
    const file = runLog('alice')
    const line = forge(file)
    const r = codeact(['replay', file])
    expect(r.stdout, 'the forged history was shown').toBe('')
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(`cannot be trusted: line ${line}: `)
    expect(r.stderr).toContain('--unverified')
  })

  it('--unverified shows a forged log only under a warning', () => {
    const file = runLog('alice')
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('alice', 'mallory'))
    const r = codeact(['replay', file, '--unverified'])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('replayed unverified: what follows may have been forged')
    expect(r.stdout).toContain('mallory')
  })
})

/** A REPL session kept in `log` by id `acct`, in which `balance` was bound to 41. */
function replSession(): string {
  const log = join(temp('codeact-forged-repl-'), 'repl.jsonl')
  const r = codeact(['repl', '--log', log, '--session', 'acct'], 'const balance = 41\nbalance\n')
  expect(r.stdout, r.stderr).toBe('Return value:\n41\n')
  return log
}

/** The logged program that bound `balance`, rewritten to bind it to 1337 (MAC kept): its line. */
function rebind(log: string): number {
  const ls = lines(log)
  const i = ls.findIndex((l) => l.includes('"type":"run/start"') && l.includes('const balance = 41'))
  ls[i] = ls[i]!.replace('const balance = 41', 'const balance = 1337')
  write(log, ls)
  return i + 1
}

describe('codeact repl --session', () => {
  it('takes up a session from a log it wrote', () => {
    const log = replSession()
    const r = codeact(['repl', '--log', log, '--session', 'acct'], 'balance + 1\n')
    expect(r.stdout, r.stderr).toContain('Return value:\n42\n')
    expect(r.stdout).toContain('the session was restored')
  })

  it.each([
    ['a rewritten program', rebind],
    [
      'its lines reordered',
      (log: string) => {
        const ls = lines(log)
        ls.push(ls.shift()!)
        write(log, ls)
        return 1
      },
    ],
  ])('refuses a log with %s, runs none of it, and leaves the file as it is', (_label, forge) => {
    const log = replSession()
    const line = forge(log)
    const before = readFileSync(log, 'utf8')
    const r = codeact(['repl', '--log', log, '--session', 'acct'], 'balance + 1\n')
    expect(r.stdout, 'the forged history ran').not.toContain('1338')
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain(`cannot be trusted (line ${line}: `)
    expect(readFileSync(log, 'utf8')).toBe(before)
  })
})

describe("the library's restore from a logFile", () => {
  async function libraryLog(): Promise<string> {
    const logFile = join(temp('codeact-forged-lib-'), 'events.jsonl')
    const rt = await createRuntime({ logFile, typecheck: 'off' })
    await rt.session({ id: 'acct' }).runCode('const balance = 41')
    await rt.close()
    return logFile
  }

  it('restores a session from a log it wrote', async () => {
    const logFile = await libraryLog()
    const rt = await createRuntime({ logFile, typecheck: 'off' })
    const r = await rt.session({ id: 'acct' }).runCode('return balance + 1')
    await rt.close()
    expect(r.value, r.observation).toBe(42)
  })

  it('refuses a rewritten log with EBADMSG, naming the line, and restores nothing from it', async () => {
    const logFile = await libraryLog()
    const line = rebind(logFile)
    const before = readFileSync(logFile, 'utf8')
    const restored = await createRuntime({ logFile, typecheck: 'off' }).then(
      async (rt) => {
        const r = await rt.session({ id: 'acct' }).runCode('return balance + 1')
        await rt.close()
        return r.value
      },
      (e: Error & { code?: string }) => e,
    )
    expect(restored, 'the forged history ran').not.toBe(1338)
    expect(restored).toMatchObject({
      code: 'EBADMSG',
      message: expect.stringContaining(`cannot be trusted (line ${line}: its MAC does not match`),
    })
    expect(readFileSync(logFile, 'utf8')).toBe(before)
  })
})

/**
 * `codeact run` checks programs in this user's shared checker (program/checker-daemon.ts): started by the
 * first run that finds none, warm for the next. What a user must be able to count on: the same verdict as a
 * process checking on its own, with the daemon absent, running, or its socket and code cache spoiled; two
 * runs started at once; and nobody else — another user, a socket someone else left, a folder others may
 * enter — ever answering a check. Every run here is the built CLI in a real process, with a state folder of
 * its own; every daemon started is ended in the teardown.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FrameReader, frame } from '../../program/checker-wire.js'

const BIN = join(process.cwd(), 'bin/codeact.mjs')
const root = mkdtempSync(join(tmpdir(), 'codeact-cold35-'))
const work = join(root, 'work')
mkdirSync(work)

/** Programs and the verdict's words: one blocked, one noted, one clean (its value). */
const PROGRAMS = {
  blocked: 'const r = await tools.nope({})\nreturn r\n',
  noted: 'const y: number = "b"\nreturn y\n',
  clean: 'const xs = [3, 1, 2].sort()\nreturn xs.join(",")\n',
}
for (const [name, text] of Object.entries(PROGRAMS)) writeFileSync(join(work, `${name}.ts`), text)

/**
 * A run that checks in its own process takes seconds under load (TypeScript loaded, the lib parsed), and a
 * test here makes several, one after another: a time limit for the processes, not a speed assertion.
 */
const SLOW = 300_000

let folders = 0
/** A state folder of its own (0700), and a code cache folder beside it. */
function freshState(): { state: string; cache: string } {
  const dir = join(root, `s${++folders}`)
  mkdirSync(join(dir, 'state'), { recursive: true, mode: 0o700 })
  mkdirSync(join(dir, 'cache'), { recursive: true, mode: 0o700 })
  return { state: join(dir, 'state'), cache: join(dir, 'cache') }
}

function envFor(s: { state: string; cache: string }, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  // The suite turns the daemon off for every other test (global-setup.ts): here it is on unless `more` says.
  const env: NodeJS.ProcessEnv = { ...process.env, CODEACT_STATE_DIR: s.state, CODEACT_CACHE_DIR: s.cache }
  delete env.CODEACT_CHECKER_DAEMON
  return { ...env, ...more }
}

interface Ran {
  status: number | null
  stdout: string
}

function run(program: string, env: NodeJS.ProcessEnv, args: string[] = []): Ran {
  const r = spawnSync(process.execPath, [BIN, 'run', `${program}.ts`, ...args], { cwd: work, encoding: 'utf8', env, timeout: 120_000 })
  return { status: r.status, stdout: r.stdout }
}

function runAsync(program: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'run', `${program}.ts`], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let stdout = ''
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    child.on('close', (status) => resolve({ status, stdout }))
  })
}

/** The verdicts of a process checking on its own (no daemon): what every shared run must say, word for word. */
const alone = freshState()
const expected = Object.fromEntries(
  Object.keys(PROGRAMS).map((p) => [p, run(p, envFor(alone, { CODEACT_CHECKER_DAEMON: 'off' }))]),
) as Record<keyof typeof PROGRAMS, Ran>

function sameVerdicts(env: NodeJS.ProcessEnv, only?: keyof typeof PROGRAMS): void {
  for (const p of only ? [only] : (Object.keys(PROGRAMS) as (keyof typeof PROGRAMS)[])) {
    const r = run(p, env)
    expect(r.stdout, p).toBe(expected[p].stdout)
    expect(r.status, p).toBe(expected[p].status)
  }
}

const socketsOf = (state: string): string[] => {
  const dir = join(state, 'checker')
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sock')) : []
}

/** The daemons serving a state folder: by their environment (a daemon that lost a race has no pid file). */
function daemonsOf(state: string): number[] {
  const pids: number[] = []
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('checker-daemon.js')) continue
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`CODEACT_STATE_DIR=${state}`)) pids.push(Number(pid))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** A Node binary uid 65534 may run: this one, or a copy where others may read it (a line's Node under /root). */
function nodeForOthers(): string {
  if (spawnSync(process.execPath, ['-e', '0'], { uid: 65534, gid: 65534 }).status === 0) return process.execPath
  const dir = mkdtempSync(join(tmpdir(), 'codeact-cold35-node-'))
  chmodSync(dir, 0o755)
  copyFileSync(process.execPath, join(dir, 'node'))
  chmodSync(join(dir, 'node'), 0o755)
  cleanups.push(dir)
  return join(dir, 'node')
}
const cleanups: string[] = []

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 100))
  expect(ok(), what).toBe(true)
}

afterAll(() => {
  for (let i = 1; i <= folders; i++)
    for (const pid of daemonsOf(join(root, `s${i}`, 'state'))) {
      try {
        process.kill(pid)
      } catch {
        // ended meanwhile
      }
    }
  rmSync(root, { recursive: true, force: true })
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true })
})

describe('codeact run with the shared checker', () => {
  it(
    'says the same as a process checking alone: daemon cold, then warm',
    () => {
      expect(expected.blocked.stdout).toMatch(/^Error \(type\): the program does not type-check; nothing ran\./)
      expect(expected.noted.stdout).toMatch(/Type-check notes/)
      expect(expected.clean.stdout).toContain('Return value:\n1,2,3')
      const s = freshState()
      const env = envFor(s)
      // Cold: no daemon yet; the first run starts it.
      const first = run('blocked', env)
      expect(first.stdout).toBe(expected.blocked.stdout)
      expect(socketsOf(s.state)).toHaveLength(1)
      expect(daemonsOf(s.state)).toHaveLength(1)
      // Warm: every verdict again, from the daemon that is up.
      sameVerdicts(env)
      expect(daemonsOf(s.state)).toHaveLength(1)
    },
    SLOW,
  )

  it(
    'ignores a spoiled socket and a garbage code cache, and rebuilds them, with the same verdicts',
    async () => {
      const s = freshState()
      const env = envFor(s)
      run('clean', env)
      const [socket] = socketsOf(s.state)
      expect(socket).toBeDefined()
      const path = join(s.state, 'checker', socket ?? '')
      // The daemon's socket replaced by a file of garbage: the daemon sees it is not its own and leaves.
      const [old] = daemonsOf(s.state)
      unlinkSync(path)
      writeFileSync(path, 'not a socket')
      await until('the replaced daemon leaves', () => !daemonsOf(s.state).includes(old ?? -1))
      // Every code cache file truncated or garbage: ignored, and written anew by the next daemon.
      const caches = readdirSync(s.cache).filter((f) => f.endsWith('.v8cache'))
      expect(caches.length).toBeGreaterThan(0)
      for (const [i, f] of caches.entries())
        writeFileSync(join(s.cache, f), i % 2 ? 'garbage' : readFileSync(join(s.cache, f)).subarray(0, 100))
      sameVerdicts(env)
      expect(daemonsOf(s.state)).toHaveLength(1)
      await until('the code cache is written anew', () => caches.every((f) => readFileSync(join(s.cache, f)).length > 1000))
    },
    SLOW,
  )

  it(
    'answers two runs started at once, and one daemon stays',
    async () => {
      const s = freshState()
      const env = envFor(s)
      const [a, b] = await Promise.all([runAsync('blocked', env), runAsync('clean', env)])
      expect(a.stdout).toBe(expected.blocked.stdout)
      expect(b.stdout).toBe(expected.clean.stdout)
      // A daemon that lost the race to the socket leaves by itself.
      await until('one daemon serves the folder', () => daemonsOf(s.state).length === 1)
      expect(socketsOf(s.state)).toHaveLength(1)
      sameVerdicts(env)
    },
    SLOW,
  )
})

describe('who the shared checker talks to', () => {
  it(
    'never takes a verdict from a socket that cannot prove the key',
    async () => {
      const s = freshState()
      const env = envFor(s)
      run('clean', env) // makes the folder, the key and the daemon
      const [socket] = socketsOf(s.state)
      const path = join(s.state, 'checker', socket ?? '')
      for (const pid of daemonsOf(s.state)) process.kill(pid)
      await until('the daemon is gone', () => daemonsOf(s.state).length === 0)
      rmSync(path, { force: true })
      // An impostor on the socket: goes through the motions of the handshake and says every program is clean.
      let asked = 0
      const impostor = createServer((c) => {
        asked++
        c.write(Buffer.alloc(32, 1))
        const reader = new FrameReader(
          (m) => c.write(frame({ id: (m as { id: number }).id, answer: { ok: true, diagnostics: [] } })),
          () => c.destroy(),
        )
        reader.expectRaw(64, () => c.write(Buffer.alloc(32, 2))) // a MAC it cannot make
        c.on('data', (d: Buffer) => reader.push(d))
        c.on('error', () => {})
      })
      await new Promise<void>((r) => impostor.listen(path, r))
      try {
        const r = await runAsync('blocked', env)
        expect(asked).toBeGreaterThan(0)
        expect(r.stdout).toBe(expected.blocked.stdout)
        expect(r.status).toBe(1)
      } finally {
        await new Promise((r) => impostor.close(r))
      }
    },
    SLOW,
  )

  it(
    "refuses another user's connection, and a client that cannot prove the key",
    async () => {
      const s = freshState()
      const env = envFor(s)
      run('clean', env)
      const [socket] = socketsOf(s.state)
      const path = join(s.state, 'checker', socket ?? '')
      const probe = `const s = require('node:net').connect(${JSON.stringify(path)})
let got = 0
s.on('data', (d) => { got += d.length; if (got >= 32) s.write(Buffer.alloc(64, 7)) })
s.on('error', (e) => { console.log(e.code); process.exit(0) })
s.on('close', () => { console.log('closed after ' + got); process.exit(0) })`
      // Another uid cannot even reach the socket: the folder is this user's, mode 0700.
      const other = spawnSync(nodeForOthers(), ['-e', probe], { uid: 65534, gid: 65534, encoding: 'utf8', timeout: 30_000 })
      expect(other.stdout.trim()).toBe('EACCES')
      // This uid without the key: the daemon sends its nonce, hears a wrong MAC, and hangs up without a word more.
      const keyless = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', timeout: 30_000 })
      expect(keyless.stdout.trim()).toBe('closed after 32')
      sameVerdicts(env)
    },
    SLOW,
  )

  it(
    'starts no daemon where others may write or enter, and still checks',
    () => {
      const s = freshState()
      chmodSync(s.state, 0o777)
      sameVerdicts(envFor(s), 'blocked')
      expect(existsSync(join(s.state, 'checker'))).toBe(false)
      const t = freshState()
      mkdirSync(join(t.state, 'checker'), { mode: 0o755 })
      chmodSync(join(t.state, 'checker'), 0o755)
      sameVerdicts(envFor(t), 'blocked')
      expect(socketsOf(t.state)).toEqual([])
      expect(daemonsOf(t.state)).toEqual([])
    },
    SLOW,
  )

  it(
    'is off with CODEACT_CHECKER_DAEMON=off',
    () => {
      const s = freshState()
      sameVerdicts(envFor(s, { CODEACT_CHECKER_DAEMON: 'off' }), 'blocked')
      expect(socketsOf(s.state)).toEqual([])
      expect(daemonsOf(s.state)).toEqual([])
    },
    SLOW,
  )
})

/**
 * A real PostgreSQL for a test: `initdb` a throw-away cluster in a temp directory, start it on a free
 * localhost port (and a unix socket in that directory), and stop + remove it in teardown. Debian's server
 * binaries are used (`/usr/lib/postgresql/<v>/bin`, or `initdb`/`pg_ctl` on PATH). As root the server runs
 * as the `postgres` user (the server refuses root). Where PostgreSQL is missing, suites skip with the reason
 * printed — except in CI (`CI=true`), where `.ci/run` installs it and a missing server is a failure.
 *
 *     const pg = await startPostgres('store32')
 *     afterAll(() => pg.remove())
 *     createRuntime({ store: pg.url })
 */
import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(root, versions[0], 'bin')
  }
  try {
    const path = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim()
    return path ? join(path, '..') : undefined
  } catch {
    return undefined
  }
}

/** The uid/gid the server runs as: ourselves, or `postgres` when we are root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    return { uid, gid }
  } catch {
    return undefined
  }
}

function probe(): { available: boolean; reason?: string; bin?: string } {
  const bin = findBinDir()
  if (!bin) return { available: false, reason: 'PostgreSQL server binaries (initdb, pg_ctl) not found; apt-get install postgresql' }
  if (process.getuid?.() === 0 && !serverUser())
    return { available: false, reason: 'running as root and there is no `postgres` user to run the server as' }
  return { available: true, bin }
}

const inCI = process.env['CI'] === 'true' || process.env['CI'] === '1'

/** Is a PostgreSQL server startable here? In CI a missing one is not skipped: the suites fail instead. */
export const postgres = probe()
/** `describe.skipIf(postgresSkip)`: true only outside CI when PostgreSQL is missing. */
export const postgresSkip = !postgres.available && !inCI
if (!postgres.available) console.warn(`[postgres tests ${inCI ? 'FAIL in CI' : 'skipped'}] ${postgres.reason}`)

export interface PostgresCluster {
  /** `postgres://codeact@127.0.0.1:<port>/codeact` — trust auth, a database of its own. */
  url: string
  port: number
  dir: string
  /** The postmaster's pid (its backends are its children). */
  postmasterPid(): number
  /** Stop the server (`immediate`: like a crash); the data stays, `start()` brings it back. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stop the server and remove its directory. */
  remove(): Promise<void>
}

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))))
    })
  })
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const opts = { encoding: 'utf8' as const, timeout: 120_000, cwd: tmpdir(), ...(user ?? {}) }
    execFile(file, args, opts, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    )
  })
}

/** initdb + start a cluster; `name` goes into the directory's name so a leftover says whose it is. */
export async function startPostgres(name: string): Promise<PostgresCluster> {
  if (!postgres.available || !postgres.bin) throw new Error(`PostgreSQL is not available: ${postgres.reason}`)
  const bin = postgres.bin
  const user = serverUser()
  const dir = mkdtempSync(join(tmpdir(), `codeact-pg-${name}-`))
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const port = await freePort()
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'codeact', '--auth=trust', '-E', 'UTF8', '--no-sync'], user)
  // fsync off: a test cluster, thrown away; the tests measure behaviour, not durability of the disk.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start'], user).then(() => {})
  const stop = () => run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], user).then(() => {})
  await start()
  await run(join(bin, 'createdb'), ['-h', dir, '-p', String(port), '-U', 'codeact', 'codeact'], user)
  let running = true
  return {
    url: `postgres://codeact@127.0.0.1:${port}/codeact`,
    port,
    dir,
    postmasterPid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    async stop() {
      if (running) await stop()
      running = false
    },
    async start() {
      if (!running) await start()
      running = true
    },
    async remove() {
      if (running) await stop().catch(() => {})
      running = false
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
